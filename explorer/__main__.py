"""``python -m explorer`` runs the application."""
from explorer.app import main

raise SystemExit(main())
