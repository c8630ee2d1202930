"""Launch Attention Explorer: ``python main.py [SESSION] [--screenshot FILE] [--size WxH]``."""
from explorer.app import main

raise SystemExit(main())
