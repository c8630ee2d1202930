"""One panel per file; each takes the shared model, renders its results and sends edits back to it."""
