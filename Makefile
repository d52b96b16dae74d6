# The two commands a new table needs: `make demo` and `make test`.
.PHONY: demo test bench lint clean

PY := .venv/bin/python

demo:
	@tools/venv.sh
	@$(PY) -m table.service.cli demo $(ARGS)

# One worker a core: each test starts its own broker, journal and pages on free ports.
# `make test PYTEST_ARGS="-n 0 -x"` runs them one at a time.
test:
	@tools/venv.sh test
	@tools/need-mosquitto.sh
	@tools/need-chromium.sh
	@$(PY) -m pytest -n auto $(PYTEST_ARGS)

bench:
	@tools/venv.sh test
	@tools/need-mosquitto.sh
	@tools/need-chromium.sh
	@for script in bench/*.py; do echo "== $$script"; $(PY) $$script || exit 1; done

lint:
	@tools/venv.sh lint,test
	@$(PY) -m ruff check .
	@$(PY) -m ruff format --check table tests bench display hw firmware_bridge vision analysis
	@$(PY) -m mypy

clean:
	rm -rf .venv build *.egg-info .pytest_cache .mypy_cache .ruff_cache .hypothesis
