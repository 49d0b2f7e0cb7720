"""secmgr: a self-hostable application-security findings service."""

__version__ = "0.1.0"
