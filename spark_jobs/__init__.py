"""PySpark jobs that size a whole fleet and simulate its consumer groups.

Empty until the Spark issue lands: the jobs will call the `planner` core for every
topic. The package exists now so the project installs as one unit from the start.
"""
