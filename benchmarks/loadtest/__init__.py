"""The load benchmark (manage.py bench_load): whole games played over HTTP and websockets."""
