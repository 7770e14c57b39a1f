#!/usr/bin/env python
"""Django's command-line utility for Trailmark."""

import sys

import bootstrap  # noqa: F401  (puts platform/ on the import path)


def main():
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
