"""zot-ext: write extensions for the zot coding agent in Python.

Placeholder: the SDK API lands here. The wire types of the protocol are
generated into :mod:`zot_ext._protocol`.
"""
