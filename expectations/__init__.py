"""Great Expectations suites for the figures going in and the recommendations coming out.

Empty until the validation issue lands; the package exists now so the project installs
as one unit from the start.
"""
