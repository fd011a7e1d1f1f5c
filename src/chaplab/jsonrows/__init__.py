"""Compact JSON arrays of flat objects to and from columns, without a Python object per row.

The wire carries tables (observations, forecast entries) as JSON arrays of flat objects, one
per row. Parsing or writing those rows one Python object at a time costs about a microsecond
and a few hundred bytes per row: for a country's 656,000 observations seconds and a gigabyte.
Here rows are columns: :func:`regular_columns` reads a regularly laid out array (compact, the
same keys in the same order, no escapes: what ``orjson.dumps`` and ``JSON.stringify`` write;
anything else is left to a full parse) into coded columns, and :class:`Rows` writes columns as
the array ``orjson.dumps`` would write, whole or a block at a time. :func:`member_array` and
:func:`replaced` read a request object whose one member is such an array. Shared by the
client's frames and the service (a leaf: numpy and orjson only).
"""

from chaplab.jsonrows._read import Coded, Column, member_array, regular_columns, replaced
from chaplab.jsonrows._texts import (
    Placed,
    Texts,
    joined_texts,
    number_texts,
    texts_of,
    write_rows,
)
from chaplab.jsonrows._write import Rows

__all__ = [
    "Coded",
    "Column",
    "Placed",
    "Rows",
    "Texts",
    "joined_texts",
    "member_array",
    "number_texts",
    "regular_columns",
    "replaced",
    "texts_of",
    "write_rows",
]
