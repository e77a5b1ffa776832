"""Kafka's own classes, run in a JVM, as an oracle for the planner's Kafka algorithms."""
