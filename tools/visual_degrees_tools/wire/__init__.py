"""Loopback fakes of the providers' wire formats (tests and benchmarks; never deployed)."""
