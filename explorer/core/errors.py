"""One error type per failure family; each is a ValueError whose message a user can act on."""


class ExplorerError(ValueError):
    """Base of every error the core raises on bad input."""


class ShapeError(ExplorerError):
    """Matrices whose shapes do not fit together (names the shapes)."""


class NonFiniteError(ExplorerError):
    """A NaN or infinity where a finite number is needed, or a value that overflows."""


class SessionError(ExplorerError):
    """A session file that cannot be loaded or saved (names the file and the place)."""


class MatrixFileError(ExplorerError):
    """A matrix file (.npy/.npz/.csv) that cannot be imported (names the file and why)."""


class EditRefused(ExplorerError):
    """An edit the model refused (names what and why); inside a transaction it undoes the whole step."""


class CheckpointError(ExplorerError):
    """A model checkpoint (config, safetensors, tokenizer) that cannot be used (names the file and tensor)."""


class ExportError(ExplorerError):
    """A session exported as a script that could not be (names the setting it cannot reproduce, or the file)."""
