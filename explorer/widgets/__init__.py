"""Reusable Qt widgets that know nothing of attention: a matrix table, a labelled slider, number text."""
