"""The load benchmark (python -m benchmarks load): whole games played over HTTP and websockets."""
