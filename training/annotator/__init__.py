"""Training the offline dialogue-act annotator: ``python -m training.annotator`` (see ``__main__``)."""
