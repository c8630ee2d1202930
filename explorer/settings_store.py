"""Where per-user things live: QSettings (window layout, recent files) and the recovery folder.

``ATTENTION_EXPLORER_HOME`` moves both into one folder (tests and portable use).
"""
import os
from pathlib import Path

from PySide6.QtCore import QSettings

APP_NAME = "attention-explorer"
ORG_NAME = "AttentionExplorer"


def home_override():
    value = os.environ.get("ATTENTION_EXPLORER_HOME")
    return Path(value) if value else None


def data_dir():
    """The per-user data folder (recovery copies); created on first use."""
    import platformdirs  # here, not at the top: ~10 ms of start-up, and only recovery needs it

    root = home_override() or Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))
    root.mkdir(parents=True, exist_ok=True)
    return root


def qsettings():
    """The app's QSettings, an INI file in the override folder when one is set."""
    root = home_override()
    if root is not None:
        root.mkdir(parents=True, exist_ok=True)
        return QSettings(str(root / "settings.ini"), QSettings.IniFormat)
    return QSettings(QSettings.IniFormat, QSettings.UserScope, ORG_NAME, APP_NAME)
