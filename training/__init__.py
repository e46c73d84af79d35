"""Training code and data for voxeval's learned components (not part of the installed package)."""
