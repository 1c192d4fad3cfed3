"""Reads a `_verl.parquet` file with pyarrow, the reader Verl's data loader is built on, and prints
what pyarrow sees as one JSON object: the column names and arrow types, the row and row-group
counts, and every row as `Table.to_pylist()` returns it.

The TypeScript tests compare this with the tasks they registered, so the file is checked by an
implementation that shares no code with the one that wrote it.

Usage: .venv-test/bin/python test/python/read_verl_parquet.py FILE
"""

import json
import sys

import pyarrow
import pyarrow.parquet as pq


def unexpected(value):
    # A value JSON cannot hold (bytes, a timestamp) means a column has the wrong type. It is
    # printed as a marked object rather than raising, so the test shows the type that came back.
    return {"__python_type__": type(value).__name__, "repr": repr(value)}


def main(argv):
    if len(argv) != 2:
        print("usage: read_verl_parquet.py FILE", file=sys.stderr)
        return 2
    path = argv[1]
    table = pq.read_table(path)
    metadata = pq.ParquetFile(path).metadata
    out = {
        "pyarrow": pyarrow.__version__,
        "columns": [{"name": field.name, "type": str(field.type)} for field in table.schema],
        "num_rows": table.num_rows,
        "num_row_groups": metadata.num_row_groups,
        "rows": table.to_pylist(),
    }
    json.dump(out, sys.stdout, default=unexpected)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
