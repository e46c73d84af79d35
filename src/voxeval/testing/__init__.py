"""Helpers for voxeval's own tests and for users testing their set-up offline (see ``mockserver``)."""
