"""How much memory a view's own computation may take: a share of what is free when it is asked."""
import os

MEMORY_SHARE = 0.8  # of the memory free when asked, what a view may take (the rest: the window, other work)


def free_memory():
    """Bytes of memory free for new work (MemAvailable), or None where that is not known."""
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def memory_allowed(free):
    """The bytes a view may use of ``free`` (None: not known, so unchecked)."""
    return None if free is None else int(free * MEMORY_SHARE)
