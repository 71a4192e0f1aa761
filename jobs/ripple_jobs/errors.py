"""Errors of the campaign commands: InputError is the user's to fix (exit code 2)."""


class InputError(Exception):
    """A bad campaign file, parameter, template or directory: one line, exit code 2."""
