"""DynamoDB in memory: the part of its API that the application uses through boto3's resource
layer, with DynamoDB's documented semantics, so that a deterministic simulation runs the
application's own store code without moto or a network.

The surface. :class:`FakeDynamo` stands for ``boto3.resource("dynamodb")``: ``create_table``,
``Table(name)`` and ``meta.client``. A table has ``get_item``, ``put_item``, ``update_item``,
``delete_item``, ``query``, ``scan``, ``name`` / ``table_name`` and ``meta.client``; the client has
the same operations taking ``TableName``, ``transact_write_items``, ``create_table``,
``get_paginator("query" | "scan")`` and ``exceptions``. Keyword arguments are the resource's:
values in Python form, serialized and deserialized by boto3's own ``TypeSerializer`` and
``TypeDeserializer`` (numbers come back as ``Decimal``, a float is a ``TypeError``, sets, lists,
maps, bools, ``None`` and ``Binary``); ``boto3.dynamodb.conditions`` objects become expressions as
boto3 makes them. A request is checked against the service's model as the client checks it
(``ParamValidationError``), and DynamoDB's refusals are raised as the client raises them: the
``ClientError`` subclass of the error code, with the response's ``Error`` and, for a cancelled
transaction, ``CancellationReasons``.

Supported, with DynamoDB's semantics:

- tables with a partition key and an optional sort key, of type S, N or B; global secondary
  indexes projecting ``ALL``, ``KEYS_ONLY`` or ``INCLUDE``, sparse (an item lacking an index's key
  attributes is not in it); a stream per table (``StreamSpecification``);
- ``ConditionExpression`` and ``FilterExpression``: ``= <> < <= > >=``, ``BETWEEN``, ``IN`` (at most
  100 operands), ``AND``, ``OR``, ``NOT``, parentheses, ``attribute_exists``,
  ``attribute_not_exists``, ``attribute_type``, ``begins_with``, ``contains``, ``size``, document
  paths with dots and ``[n]``; ``#name`` and ``:value`` placeholders, a placeholder that is not
  defined or a definition that is not used refused, and a reserved word used as a name refused;
  an ordering comparison of operands of different types is false, ``<>`` of a missing attribute
  is true;
- ``KeyConditionExpression``: the partition key ``=``, the sort key ``= < <= > >=``, ``BETWEEN``,
  ``begins_with``, one condition per key;
- ``UpdateExpression``: ``SET`` (``+`` and ``-``, ``list_append``, ``if_not_exists``, nested paths,
  a list index past the end appends), ``REMOVE`` (list elements by their indexes before the update),
  ``ADD`` (numbers, a missing attribute counting as 0; sets), ``DELETE`` (sets; an emptied set is
  removed); every operand is read from the item as it was before the update; a key attribute or
  two overlapping paths refused; ``ReturnValues`` ``NONE``, ``ALL_OLD``, ``ALL_NEW``,
  ``UPDATED_OLD``, ``UPDATED_NEW`` (put and delete: ``NONE``, ``ALL_OLD``);
- ``Query`` and ``Scan``: ``IndexName``, ``ScanIndexForward``, ``Limit`` (the items evaluated,
  before the filter), ``ExclusiveStartKey`` and ``LastEvaluatedKey`` (an index's: the table's key
  and the index's; one outside the key condition refused), pages of at most 1 MB, ``ConsistentRead``
  (refused on an index), ``Select`` ``ALL_ATTRIBUTES``, ``ALL_PROJECTED_ATTRIBUTES`` (an index's) and
  ``COUNT``; a query's filter on the queried key refused. Strings sort by their UTF-8
  bytes, numbers by value, binaries by bytes; an index's items with equal sort keys by the table's
  key (DynamoDB leaves that order unspecified). A scan reads the partitions in the order of their
  keys (DynamoDB's order is its hashes': unspecified). A page that reached ``Limit`` has a
  ``LastEvaluatedKey``, whether or not more items follow, as DynamoDB documents ``Limit``;
- ``TransactWriteItems``: ``Put``, ``Update``, ``Delete``, ``ConditionCheck``; at most 100 items,
  two on one item refused; every condition is evaluated on the items as they were before the
  transaction, and any failure cancels all of it, with one reason per item in order
  (``ConditionalCheckFailed``, ``ValidationError`` for an update that cannot apply to the stored
  item, ``None``);
- item sizes by DynamoDB's rules (names and values in UTF-8 bytes, a number one byte per two
  significant digits plus one, a list or map 3 bytes plus 1 per element, a null or a bool 1
  byte), at most 400 KB; key sizes (2048 and 1024 bytes), numbers of at most 38 significant digits
  within DynamoDB's range, stored trimmed of leading and trailing zeroes;
- streams: one record per committed change in commit order (``INSERT``, ``MODIFY``, ``REMOVE``), with
  ``Keys``, ``OldImage`` and ``NewImage`` as the view type says, in DynamoDB's typed form, an
  increasing ``SequenceNumber``, a deterministic ``eventID`` and ``eventSourceARN`` (the form of a
  Lambda event's record); ``ApproximateCreationDateTime`` (seconds) when a clock is given. A write
  that changes nothing (the same item put again, an update to the values already there, a delete
  of no item) gives no record, as DynamoDB Streams documents; a failed condition or a cancelled
  transaction gives none. :meth:`FakeDynamo.records` reads them, :meth:`FakeDynamo.take_records`
  takes them.

Anything else a request uses raises :class:`Unsupported` naming it, never ignored:
``ProjectionExpression``, ``AttributesToGet``, the legacy parameters (``Expected``,
``AttributeUpdates``, ``KeyConditions``, ``QueryFilter``, ``ScanFilter``, ``ConditionalOperator``),
``Select`` ``SPECIFIC_ATTRIBUTES``, ``Segment``, ``ClientRequestToken``, ``ReturnConsumedCapacity``,
``ReturnItemCollectionMetrics`` and ``ReturnValuesOnConditionCheckFailure`` other than ``NONE``,
local secondary indexes, a key condition written value first, a condition object inside a
transaction's item, a paginator's ``PaginationConfig``, and every other operation.

Simplified: every read sees every committed write (an index is never behind its table, and an
eventually consistent read never misses a write, as both may on DynamoDB) unless told otherwise
(:meth:`FakeDynamo.lag_indexes`: then each change reaches each index when told, an item's changes in
order; :meth:`FakeDynamo.stale_reads_within`: then an eventually consistent read of a table sees it
as it was when told), and items past their TTL stay (DynamoDB deletes them at a time of its own).
Deterministic: no clock unless one is given, no randomness, no threads; one lock makes each request
atomic.
"""

from __future__ import annotations

import bisect
import hashlib
import heapq
import itertools
import re
import threading
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Context, Decimal
from functools import cache, lru_cache, partial
from typing import Any, NoReturn, cast

from boto3.dynamodb.conditions import ConditionBase, ConditionExpressionBuilder
from boto3.dynamodb.types import DYNAMODB_CONTEXT, TypeDeserializer, TypeSerializer
from botocore.errorfactory import BaseClientExceptions, ClientExceptionsFactory
from botocore.exceptions import ClientError, ParamValidationError
from botocore.model import ServiceModel, Shape
from botocore.session import get_session
from botocore.validate import validate_parameters

MAX_ITEM_BYTES = 400 * 1024
"""An item's largest size (names and values, DynamoDB's sizing rules)."""
MAX_PAGE_BYTES = 1024 * 1024
"""The most a query or scan reads for one page."""
MAX_TRANSACTION_ITEMS = 100
MAX_PARTITION_KEY_BYTES = 2048
MAX_SORT_KEY_BYTES = 1024
MAX_IN_OPERANDS = 100
MAX_DIGITS = 38
LARGEST = Decimal("9.9999999999999999999999999999999999999E+125")
SMALLEST = Decimal("1E-130")
FIRST_SEQUENCE = 10**20
"""A stream's sequence numbers: 21 digits, increasing by one per record."""
_RESERVED_WORDS = """
ABORT ABSOLUTE ACTION ADD AFTER AGENT AGGREGATE ALL ALLOCATE ALTER ANALYZE AND ANY ARCHIVE ARE ARRAY AS ASC
ASCII ASENSITIVE ASSERTION ASYMMETRIC AT ATOMIC ATTACH ATTRIBUTE AUTH AUTHORIZATION AUTHORIZE AUTO AVG BACK
BACKUP BASE BATCH BEFORE BEGIN BETWEEN BIGINT BINARY BIT BLOB BLOCK BOOLEAN BOTH BREADTH BUCKET BULK BY BYTE
CALL CALLED CALLING CAPACITY CASCADE CASCADED CASE CAST CATALOG CHAR CHARACTER CHECK CLASS CLOB CLOSE CLUSTER
CLUSTERED CLUSTERING CLUSTERS COALESCE COLLATE COLLATION COLLECTION COLUMN COLUMNS COMBINE COMMENT COMMIT
COMPACT COMPILE COMPRESS CONDITION CONFLICT CONNECT CONNECTION CONSISTENCY CONSISTENT CONSTRAINT CONSTRAINTS
CONSTRUCTOR CONSUMED CONTINUE CONVERT COPY CORRESPONDING COUNT COUNTER CREATE CROSS CUBE CURRENT CURSOR CYCLE
DATA DATABASE DATE DATETIME DAY DEALLOCATE DEC DECIMAL DECLARE DEFAULT DEFERRABLE DEFERRED DEFINE DEFINED
DEFINITION DELETE DELIMITED DEPTH DEREF DESC DESCRIBE DESCRIPTOR DETACH DETERMINISTIC DIAGNOSTICS DIRECTORIES
DISABLE DISCONNECT DISTINCT DISTRIBUTE DO DOMAIN DOUBLE DROP DUMP DURATION DYNAMIC EACH ELEMENT ELSE ELSEIF
EMPTY ENABLE END EQUAL EQUALS ERROR ESCAPE ESCAPED EVAL EVALUATE EXCEEDED EXCEPT EXCEPTION EXCEPTIONS EXCLUSIVE
EXEC EXECUTE EXISTS EXIT EXPLAIN EXPLODE EXPORT EXPRESSION EXTENDED EXTERNAL EXTRACT FAIL FALSE FAMILY FETCH
FIELDS FILE FILTER FILTERING FINAL FINISH FIRST FIXED FLATTERN FLOAT FOR FORCE FOREIGN FORMAT FORWARD FOUND FREE
FROM FULL FUNCTION FUNCTIONS GENERAL GENERATE GET GLOB GLOBAL GO GOTO GRANT GREATER GROUP GROUPING HANDLER HASH
HAVE HAVING HEAP HIDDEN HOLD HOUR IDENTIFIED IDENTITY IF IGNORE IMMEDIATE IMPORT IN INCLUDING INCLUSIVE
INCREMENT INCREMENTAL INDEX INDEXED INDEXES INDICATOR INFINITE INITIALLY INLINE INNER INNTER INOUT INPUT
INSENSITIVE INSERT INSTEAD INT INTEGER INTERSECT INTERVAL INTO INVALIDATE IS ISOLATION ITEM ITEMS ITERATE JOIN
KEY KEYS LAG LANGUAGE LARGE LAST LATERAL LEAD LEADING LEAVE LEFT LENGTH LESS LEVEL LIKE LIMIT LIMITED LINES LIST
LOAD LOCAL LOCALTIME LOCALTIMESTAMP LOCATION LOCATOR LOCK LOCKS LOG LOGED LONG LOOP LOWER MAP MATCH MATERIALIZED
MAX MAXLEN MEMBER MERGE METHOD METRICS MIN MINUS MINUTE MISSING MOD MODE MODIFIES MODIFY MODULE MONTH MULTI
MULTISET NAME NAMES NATIONAL NATURAL NCHAR NCLOB NEW NEXT NO NONE NOT NULL NULLIF NUMBER NUMERIC OBJECT OF
OFFLINE OFFSET OLD ON ONLINE ONLY OPAQUE OPEN OPERATOR OPTION OR ORDER ORDINALITY OTHER OTHERS OUT OUTER OUTPUT
OVER OVERLAPS OVERRIDE OWNER PAD PARALLEL PARAMETER PARAMETERS PARTIAL PARTITION PARTITIONED PARTITIONS PATH
PERCENT PERCENTILE PERMISSION PERMISSIONS PIPE PIPELINED PLAN POOL POSITION PRECISION PREPARE PRESERVE PRIMARY
PRIOR PRIVATE PRIVILEGES PROCEDURE PROCESSED PROJECT PROJECTION PROPERTY PROVISIONING PUBLIC PUT QUERY QUIT
QUORUM RAISE RANDOM RANGE RANK RAW READ READS REAL REBUILD RECORD RECURSIVE REDUCE REF REFERENCE REFERENCES
REFERENCING REGEXP REGION REINDEX RELATIVE RELEASE REMAINDER RENAME REPEAT REPLACE REQUEST RESET RESIGNAL
RESOURCE RESPONSE RESTORE RESTRICT RESULT RETURN RETURNING RETURNS REVERSE REVOKE RIGHT ROLE ROLES ROLLBACK
ROLLUP ROUTINE ROW ROWS RULE RULES SAMPLE SATISFIES SAVE SAVEPOINT SCAN SCHEMA SCOPE SCROLL SEARCH SECOND
SECTION SEGMENT SEGMENTS SELECT SELF SEMI SENSITIVE SEPARATE SEQUENCE SERIALIZABLE SESSION SET SETS SHARD SHARE
SHARED SHORT SHOW SIGNAL SIMILAR SIZE SKEWED SMALLINT SNAPSHOT SOME SOURCE SPACE SPACES SPARSE SPECIFIC
SPECIFICTYPE SPLIT SQL SQLCODE SQLERROR SQLEXCEPTION SQLSTATE SQLWARNING START STATE STATIC STATUS STORAGE STORE
STORED STREAM STRING STRUCT STYLE SUB SUBMULTISET SUBPARTITION SUBSTRING SUBTYPE SUM SUPER SYMMETRIC SYNONYM
SYSTEM TABLE TABLESAMPLE TEMP TEMPORARY TERMINATED TEXT THAN THEN THROUGHPUT TIME TIMESTAMP TIMEZONE TINYINT TO
TOKEN TOTAL TOUCH TRAILING TRANSACTION TRANSFORM TRANSLATE TRANSLATION TREAT TRIGGER TRIM TRUE TRUNCATE TTL
TUPLE TYPE UNDER UNDO UNION UNIQUE UNIT UNKNOWN UNLOGGED UNNEST UNPROCESSED UNSIGNED UNTIL UPDATE UPPER URL
USAGE USE USER USERS USING UUID VACUUM VALUE VALUED VALUES VARCHAR VARIABLE VARIANCE VARINT VARYING VIEW VIEWS
VIRTUAL VOID WAIT WHEN WHENEVER WHERE WHILE WINDOW WITH WITHIN WITHOUT WORK WRAPPED WRITE YEAR ZONE
"""
RESERVED = frozenset(_RESERVED_WORDS.split())
"""DynamoDB's reserved words: as a name in an expression, refused (a ``#name`` placeholder is not)."""

AttributeValue = dict[str, Any]
"""A value in DynamoDB's typed form: ``{"S": "a"}``, ``{"N": "1"}``, ``{"L": [...]}``..."""
Item = dict[str, AttributeValue]
Element = str | int
Path = tuple[Element, ...]
"""A document path: an attribute's name, then map keys and list indexes."""

CONDITION_FUNCTIONS = {"attribute_exists": 1, "attribute_not_exists": 1, "attribute_type": 2, "begins_with": 2,
                       "contains": 2}
COMPARATORS = ("=", "<>", "<", "<=", ">", ">=")
TYPES = ("S", "N", "B", "SS", "NS", "BS", "BOOL", "NULL", "L", "M")
SETS = ("SS", "NS", "BS")
ORDERED = ("S", "N", "B")
VIEWS = ("KEYS_ONLY", "NEW_IMAGE", "OLD_IMAGE", "NEW_AND_OLD_IMAGES")
CONDITION_FAILED = "The conditional request failed"
NOT_IN_ITEM = "The provided expression refers to an attribute that does not exist in the item"
WRONG_TYPE = "An operand in the update expression has an incorrect data type"
BAD_UPDATE_PATH = "The document path provided in the update expression is invalid for update"
KEY_MISMATCH = "The provided key element does not match the schema"
BAD_START = "The provided starting key is invalid: The provided key element does not match the schema"
OUTSIDE_START = "The provided starting key is outside query boundaries based on provided conditions"
NOT_FOUND = "Requested resource not found"
EXACT = Context(prec=400)
"""Arithmetic on DynamoDB numbers without rounding (their digits and exponents fit in it)."""


class Unsupported(ValueError):
    """A request uses an operation, a parameter or a form of expression this stand-in does not
    interpret."""


class Refused(Exception):
    """DynamoDB refuses the request: its error code, message and the response's other fields (the
    caller gets it as the client raises it: a ``ClientError``)."""

    def __init__(self, text: str, code: str = "ValidationException", **fields: Any) -> None:
        super().__init__(text)
        self.code, self.message, self.fields = code, text, fields


class Invalid(Refused):
    """A ``ValidationException`` that depends on the stored item (an attribute that is not there,
    an operand of the wrong type, an item grown too large): in a transaction, the item's
    cancellation reason ``ValidationError`` rather than a refusal of the request."""


class ConditionFailed(Exception):
    """A write's condition does not hold on the stored item."""


TRANSACTION_CONFLICT = "TransactionConflictException"
IN_FLIGHT = "Transaction is ongoing for the item"
"""A transaction's cancellation reason ``TransactionConflict``, in its words."""
REJECTED_IN_FLIGHT = "Operation was rejected because there is an ongoing transaction for the item."
WRITES = frozenset({"PutItem", "UpdateItem", "DeleteItem", "TransactWriteItems"})
"""The operations a transaction in flight on one of their items refuses (:func:`in_flight`)."""


def in_flight(operation: str, request: Mapping[str, Any], item: int = 0) -> Refused:
    """DynamoDB's refusal of a write (one of :data:`WRITES`) that meets another transaction in
    flight on one of its items: a single write's ``TransactionConflictException``; a transaction
    cancelled, its ``item``-th item's reason ``TransactionConflict`` and every other's ``None``."""
    if operation != "TransactWriteItems":
        return Refused(REJECTED_IN_FLIGHT, TRANSACTION_CONFLICT)
    reasons = [{"Code": "TransactionConflict", "Message": IN_FLIGHT} if n == item else {"Code": "None"}
               for n in range(len(request["TransactItems"]))]
    message = ("Transaction cancelled, please refer cancellation reasons for specific reasons ["
               + ", ".join(reason["Code"] for reason in reasons) + "]")
    return Refused(message, "TransactionCanceledException", Message=message, CancellationReasons=reasons)


# --- values ------------------------------------------------------------------------------------------

_SERIALIZER = TypeSerializer()
_DESERIALIZER = TypeDeserializer()


def only(value: AttributeValue) -> tuple[str, Any]:
    """A typed value's type and its content."""
    ((kind, content),) = value.items()
    return kind, content


def number_text(number: Decimal) -> str:
    """A number as DynamoDB keeps it: leading and trailing zeroes trimmed; refused (as a
    :class:`Invalid`) outside DynamoDB's range or beyond 38 significant digits."""
    if number.is_zero():
        return "0"
    if abs(number) > LARGEST:
        raise Invalid("Number overflow. Attempting to store a number with magnitude larger than supported range")
    if abs(number) < SMALLEST:
        raise Invalid("Number underflow. Attempting to store a number with magnitude smaller than supported range")
    trimmed = number.normalize(EXACT)
    _, digits, exponent = trimmed.as_tuple()
    if len(digits) > MAX_DIGITS:
        raise Invalid("Attempting to store more than 38 significant digits in a Number")
    if isinstance(exponent, int) and exponent >= 0 and len(digits) + exponent > MAX_DIGITS:
        return str(trimmed)
    return format(trimmed, "f")


def canonical(value: AttributeValue) -> AttributeValue:
    """A serialized value as DynamoDB stores it: numbers trimmed, binaries as ``bytes``; an empty
    set refused."""
    kind, content = only(value)
    if kind == "N":
        return {"N": number_text(Decimal(content))}
    if kind in SETS:
        if not content:
            name = {"SS": "string", "NS": "number", "BS": "binary"}[kind]
            raise Refused(f"One or more parameter values were invalid: An {name} set  may not be empty")
        if kind == "NS":
            return {kind: [number_text(Decimal(n)) for n in content]}
        return {kind: [bytes(b) for b in content] if kind == "BS" else list(content)}
    if kind == "B":
        return {"B": bytes(content)}
    if kind == "L":
        return {"L": [canonical(v) for v in content]}
    if kind == "M":
        return {"M": {k: canonical(v) for k, v in content.items()}}
    return {kind: content}


_WHOLE = 10 ** MAX_DIGITS
"""Integers below this in size are numbers boto3 serializes as their own text (38 digits at most)."""


class NotAName(Exception):
    """A map whose names are not all strings, met while typing a request's values: botocore's
    validator refuses the request (:func:`check_attribute_values` says where)."""


_STRINGS = itertools.repeat(str)


def typed(value: Any, names: bool = True) -> AttributeValue:
    """A Python value in DynamoDB's typed form, as the resource's client serializes it: strings,
    flags, integers, nulls, maps and lists directly (what the application stores, item after item),
    anything else by boto3's own serializer (its refusals included: a float, a 39-digit number).

    What it returns is one valid member of botocore's ``AttributeValue`` union at every level, but
    for a map with a name that is not a string: :class:`NotAName` then, unless ``names`` is False
    (the map typed as it is, for :func:`check_attribute_values` to refuse it as botocore does)."""
    kind = type(value)  # the exact types first, by identity: what nearly every value is
    if kind is str:
        return {"S": value}
    if kind is dict:
        if names and not all(map(isinstance, value, _STRINGS)):
            raise NotAName
        return {"M": {key: typed(inner, names) for key, inner in value.items()}}
    if kind is int and -_WHOLE < value < _WHOLE:
        return {"N": str(value)}
    if kind is list:
        return {"L": [typed(inner, names) for inner in value]}
    return _typed(value, names)


def _typed(value: Any, names: bool) -> AttributeValue:
    if isinstance(value, str):
        return {"S": value}
    if isinstance(value, bool):
        return {"BOOL": value}
    if isinstance(value, int) and -_WHOLE < value < _WHOLE:
        return {"N": str(value)}
    if value is None:
        return {"NULL": True}
    if isinstance(value, dict):
        if names and not all(map(isinstance, value, _STRINGS)):
            raise NotAName
        return {"M": {key: typed(inner, names) for key, inner in value.items()}}
    if isinstance(value, list):
        return {"L": [typed(inner, names) for inner in value]}
    return canonical(cast(AttributeValue, _SERIALIZER.serialize(value)))


def plain(item: Mapping[str, AttributeValue]) -> dict[str, Any]:
    """An item in Python form, as the resource's client deserializes it (boto3's rules: numbers
    as ``Decimal`` in DynamoDB's context, binaries as ``Binary``, sets as sets)."""
    return {name: _plain_value(value) for name, value in item.items()}


_DECIMAL = DYNAMODB_CONTEXT.create_decimal


def _plain_value(value: AttributeValue) -> Any:
    ((kind, content),) = value.items()
    if kind == "S" or kind == "BOOL":
        return content
    if kind == "N":
        return _DECIMAL(content)
    if kind == "M":
        return {key: _plain_value(inner) for key, inner in content.items()}
    if kind == "L":
        return [_plain_value(inner) for inner in content]
    return _DESERIALIZER.deserialize(cast(Any, value))


def clone(value: AttributeValue) -> AttributeValue:
    kind, content = only(value)
    if kind == "L":
        return {"L": [clone(v) for v in content]}
    if kind == "M":
        return {"M": {k: clone(v) for k, v in content.items()}}
    if kind in SETS:
        return {kind: list(content)}
    return {kind: content}


def clone_item(item: Mapping[str, AttributeValue]) -> Item:
    return {name: clone(value) for name, value in item.items()}


def same(a: AttributeValue, b: AttributeValue) -> bool:
    """DynamoDB's equality: same type and value (numbers by value, sets regardless of order)."""
    if a is b:  # a value an update left as it was
        return True
    kind, x = only(a)
    other, y = only(b)
    if kind != other:
        return False
    if kind == "N":
        return Decimal(x) == Decimal(y)
    if kind == "NS":
        return {Decimal(n) for n in x} == {Decimal(n) for n in y}
    if kind in ("SS", "BS"):
        return set(x) == set(y)
    if kind == "L":
        return len(x) == len(y) and all(same(v, w) for v, w in zip(x, y, strict=True))
    if kind == "M":
        return bool(x.keys() == y.keys()) and all(same(x[k], y[k]) for k in x)
    return bool(x == y)


def same_item(a: Item | None, b: Item | None) -> bool:
    if a is None or b is None:
        return a is b
    return a.keys() == b.keys() and all(same(a[name], b[name]) for name in a)


def order(value: AttributeValue) -> Any:
    """The sort order of a string (its UTF-8 bytes), a number (its value) or a binary (its bytes)."""
    ((kind, content),) = value.items()  # only(value), inlined: called for every key read
    if kind == "N":
        return Decimal(content)
    if kind == "S":
        return content.encode("utf-8")
    return bytes(content)


def member(kind: str, element: Any, elements: Sequence[Any]) -> bool:
    """Is ``element`` in a set of type ``kind`` (numbers compared by value)?"""
    if kind == "NS":
        return Decimal(element) in {Decimal(n) for n in elements}
    return element in elements


def number_size(text: str) -> int:
    if text.isdigit() or (text[:1] == "-" and text[1:].isdigit()):  # an integer: its significant digits
        digits = len(text.lstrip("-").strip("0")) or 1
    else:
        digits = len(Decimal(text).normalize(EXACT).as_tuple().digits)
    return (digits + 1) // 2 + 1


def value_size(value: AttributeValue) -> int:
    """A value's size by DynamoDB's rules."""
    ((kind, content),) = value.items()  # only(value), inlined: called for every value written
    if kind == "S":
        return len(content) if content.isascii() else len(content.encode("utf-8"))
    if kind == "N":
        return number_size(content)
    if kind == "B":
        return len(content)
    if kind in ("BOOL", "NULL"):
        return 1
    if kind == "SS":
        return sum(len(s.encode("utf-8")) for s in content)
    if kind == "NS":
        return sum(number_size(n) for n in content)
    if kind == "BS":
        return sum(len(b) for b in content)
    known = _SIZES.get(id(value))
    if known is not None and known[0] is value:
        return known[1]
    if kind == "L":
        return _measured(value, 3 + sum(value_size(v) + 1 for v in content))
    return _measured(value, 3 + sum(len(k.encode("utf-8")) + value_size(v) + 1 for k, v in content.items()))


_SIZES: dict[int, tuple[Mapping[str, Any], int]] = {}
"""The sizes of the items, maps and lists measured last, by identity (each kept, so that its
identity stays its own while it is here)."""
_SIZES_KEPT = 262_144


def _measured(value: Mapping[str, Any], size: int) -> int:
    if len(_SIZES) >= _SIZES_KEPT:
        _SIZES.clear()
    _SIZES[id(value)] = (value, size)
    return size


def item_size(item: Mapping[str, AttributeValue]) -> int:
    """An item's size by DynamoDB's rules: each attribute's name (UTF-8 bytes) and value.

    An item, a map or a list measured here is not changed afterwards: a stored item never is, and
    an update makes a new item that shares what it leaves as it was with the stored one
    (:func:`apply`). So each is measured once: an item is written, recorded in the stream and read
    back, each needing its size, and an update measures only what it changed."""
    known = _SIZES.get(id(item))
    if known is not None and known[0] is item:
        return known[1]
    return _measured(item, sum((len(name) if name.isascii() else len(name.encode("utf-8"))) + value_size(value)
                               for name, value in item.items()))


def show(value: AttributeValue) -> str:
    kind, content = only(value)
    return f"{{{kind}:{content}}}"


# --- document paths ----------------------------------------------------------------------------------


def find(item: Mapping[str, AttributeValue] | None, path: Path) -> AttributeValue | None:
    """The value at ``path``, or None where there is none."""
    if item is None:
        return None
    value = item.get(cast(str, path[0]))
    for step in path[1:]:
        if value is None:
            return None
        kind, content = only(value)
        if isinstance(step, int):
            value = content[step] if kind == "L" and step < len(content) else None
        else:
            value = content.get(step) if kind == "M" else None
    return value


def place(item: Item, path: Path, value: AttributeValue) -> None:
    """Set the value at ``path`` (its parent must exist; a list index past the end appends)."""
    if len(path) == 1:
        item[cast(str, path[0])] = value
        return
    kind, content = only(_parent(item, path))
    step = path[-1]
    if isinstance(step, int) and kind == "L":
        if step < len(content):
            content[step] = value
        else:
            content.append(value)
    elif isinstance(step, str) and kind == "M":
        content[step] = value
    else:
        raise Invalid(BAD_UPDATE_PATH)


def remove(item: Item, path: Path) -> None:
    """Remove the value at ``path``, if there is one (its parent must exist)."""
    if len(path) == 1:
        item.pop(cast(str, path[0]), None)
        return
    kind, content = only(_parent(item, path))
    step = path[-1]
    if isinstance(step, int) and kind == "L":
        if step < len(content):
            del content[step]
    elif isinstance(step, str) and kind == "M":
        content.pop(step, None)
    else:
        raise Invalid(BAD_UPDATE_PATH)


def _parent(item: Item, path: Path) -> AttributeValue:
    """The map or list that holds ``path``'s last step, made the item's own: each map and list on
    the way is copied into the one holding it before anything in it changes, so that ``item`` (a
    copy of the stored item's top level, :func:`apply`) shares the rest with the stored item, which
    stays as it was."""
    value = item.get(cast(str, path[0]))
    if value is None:
        raise Invalid(BAD_UPDATE_PATH)
    value = item[cast(str, path[0])] = _own(value)
    for step in path[1:-1]:
        kind, content = only(value)
        inside = (kind == "L" and step < len(content)) if isinstance(step, int) else (kind == "M" and step in content)
        if not inside:
            raise Invalid(BAD_UPDATE_PATH)
        value = content[step] = _own(content[step])
    return value


def _own(value: AttributeValue) -> AttributeValue:
    """A map or a list as a new container (its members shared); any other value as it is."""
    kind, content = only(value)
    if kind == "M":
        return {"M": dict(content)}
    if kind == "L":
        return {"L": list(content)}
    return value


def show_path(path: Path) -> str:
    return "[" + ", ".join(f"[{step}]" if isinstance(step, int) else step for step in path) + "]"


Trie = dict[Element, "Trie | None"]


def project(item: Mapping[str, AttributeValue] | None, paths: Sequence[Path]) -> Item:
    """The parts of ``item`` at ``paths`` (a list's elements kept in their order), as
    ``UPDATED_OLD`` and ``UPDATED_NEW`` give them."""
    trie: Trie = {}
    for path in paths:
        node = trie
        for step in path[:-1]:
            child = node.setdefault(step, {})
            if child is None:
                break
            node = child
        else:
            node[path[-1]] = None
    out: Item = {}
    for name, sub in trie.items():
        picked = _pick((item or {}).get(cast(str, name)), sub)
        if picked is not None:
            out[cast(str, name)] = picked
    return out


def _pick(value: AttributeValue | None, sub: Trie | None) -> AttributeValue | None:
    if value is None or sub is None:
        return None if value is None else clone(value)
    kind, content = only(value)
    if kind == "M":
        kept = {k: p for k, s in sub.items() if isinstance(k, str) and (p := _pick(content.get(k), s)) is not None}
        return {"M": kept} if kept else None
    if kind == "L":
        indexes = sorted(i for i in sub if isinstance(i, int) and i < len(content))
        elements = [p for i in indexes if (p := _pick(content[i], sub[i])) is not None]
        return {"L": elements} if elements else None
    return None


# --- expressions: their parts ---------------------------------------------------------------------


@dataclass(frozen=True)
class Attr:
    """A document path in an expression."""

    path: Path


@dataclass(frozen=True)
class Const:
    """An expression attribute value (``:v``)."""

    value: AttributeValue


@dataclass(frozen=True)
class Size:
    """``size(path)``."""

    path: Path


Operand = Attr | Const | Size


@dataclass(frozen=True)
class Compare:
    op: str
    left: Operand
    right: Operand


@dataclass(frozen=True)
class Between:
    subject: Operand
    low: Operand
    high: Operand


@dataclass(frozen=True)
class In:
    subject: Operand
    options: tuple[Operand, ...]


@dataclass(frozen=True)
class Call:
    """A condition function: ``attribute_exists(path)``, ``begins_with(path, :v)``..."""

    name: str
    args: tuple[Operand, ...]


@dataclass(frozen=True)
class Not:
    inner: Condition


@dataclass(frozen=True)
class Logical:
    op: str  # AND, OR
    left: Condition
    right: Condition


Condition = Compare | Between | In | Call | Not | Logical


@dataclass(frozen=True)
class IfNotExists:
    path: Path
    fallback: UpdateOperand


@dataclass(frozen=True)
class ListAppend:
    first: UpdateOperand
    second: UpdateOperand


@dataclass(frozen=True)
class Arithmetic:
    op: str  # + or -
    left: UpdateOperand
    right: UpdateOperand


UpdateOperand = Attr | Const | IfNotExists | ListAppend
SetValue = UpdateOperand | Arithmetic


@dataclass(frozen=True)
class Update:
    """An ``UpdateExpression``: its actions, clause by clause."""

    sets: tuple[tuple[Path, SetValue], ...] = ()
    removes: tuple[Path, ...] = ()
    adds: tuple[tuple[Path, AttributeValue], ...] = ()
    deletes: tuple[tuple[Path, AttributeValue], ...] = ()

    def targets(self) -> list[Path]:
        return ([p for p, _ in self.sets] + list(self.removes) + [p for p, _ in self.adds]
                + [p for p, _ in self.deletes])


@dataclass
class Placeholders:
    """A request's ``ExpressionAttributeNames`` and ``ExpressionAttributeValues`` (typed), and the
    ones its expressions used."""

    names: Mapping[str, str]
    values: Mapping[str, AttributeValue]
    used_names: set[str] = field(default_factory=set)
    used_values: set[str] = field(default_factory=set)
    expressions: int = 0

    def name(self, token: str, kind: str) -> str:
        if token not in self.names:
            raise Refused(f"Invalid {kind}: An expression attribute name used in the document path is not defined; "
                          f"attribute name: {token}")
        self.used_names.add(token)
        return self.names[token]

    def value(self, token: str, kind: str) -> AttributeValue:
        if token not in self.values:
            raise Refused(f"Invalid {kind}: An expression attribute value used in expression is not defined; "
                          f"attribute value: {token}")
        self.used_values.add(token)
        return self.values[token]

    def check(self, given_names: bool, given_values: bool) -> None:
        """Refuse definitions that no expression used, as DynamoDB does."""
        for given, label, defined, used in ((given_names, "ExpressionAttributeNames", self.names, self.used_names),
                                            (given_values, "ExpressionAttributeValues", self.values,
                                             self.used_values)):
            if not given:
                continue
            if not defined:
                raise Refused(f"{label} must not be empty")
            if not self.expressions:
                raise Refused(f"{label} can only be specified when using expressions")
            unused = sorted(set(defined) - used)
            if unused:
                raise Refused(f"Value provided in {label} unused in expressions: keys: {{{', '.join(unused)}}}")


# --- expressions: parsing ----------------------------------------------------------------------------

_TOKEN = re.compile(r"\s*(?:(?P<name>[A-Za-z_][A-Za-z0-9_]*)|(?P<placeholder>#[A-Za-z0-9_]+)"
                    r"|(?P<value>:[A-Za-z0-9_]+)|(?P<index>[0-9]+)|(?P<symbol><>|<=|>=|[=<>()\[\],.+\-]))")


@lru_cache(maxsize=4096)
def tokens(text: str, kind: str) -> tuple[tuple[str, str], ...]:
    """An expression's tokens: ``(kind, text)``, ending with ``("end", "")`` (an application sends
    the same few expressions again and again: each is read once)."""
    out: list[tuple[str, str]] = []
    position = 0
    while text[position:].strip():
        match = _TOKEN.match(text, position)
        if match is None or match.lastgroup is None:
            bad = text[position:].strip()[:1]
            raise Refused(f'Invalid {kind}: Syntax error; token: "{bad}", near: "{text[position:].strip()[:10]}"')
        out.append((match.lastgroup, match.group(match.lastgroup)))
        position = match.end()
    out.append(("end", ""))
    return tuple(out)


class Parser:
    """A recursive-descent reader of one expression of a request (``kind``: ``ConditionExpression``,
    ``FilterExpression``, ``KeyConditionExpression`` or ``UpdateExpression``)."""

    def __init__(self, text: str, kind: str, placeholders: Placeholders) -> None:
        if not text.strip():
            raise Refused(f"Invalid {kind}: The expression can not be empty;")
        self.kind, self.placeholders = kind, placeholders
        self.tokens, self.at = tokens(text, kind), 0
        placeholders.expressions += 1

    def peek(self, ahead: int = 0) -> tuple[str, str]:
        at = self.at + ahead
        return self.tokens[at] if at < len(self.tokens) else self.tokens[-1]

    def take(self) -> tuple[str, str]:
        token = self.peek()
        self.at += 1
        return token

    def symbol(self, text: str) -> bool:
        if self.peek() == ("symbol", text):
            self.at += 1
            return True
        return False

    def keyword(self, word: str) -> bool:
        kind, text = self.peek()
        if kind == "name" and text.upper() == word:
            self.at += 1
            return True
        return False

    def expect(self, text: str) -> None:
        if not self.symbol(text):
            self.syntax()

    def syntax(self) -> NoReturn:
        kind, text = self.peek()
        near = " ".join(t for _, t in self.tokens[max(self.at - 1, 0):self.at + 2])
        raise Refused(f'Invalid {self.kind}: Syntax error; token: "{text if kind != "end" else "<EOF>"}", '
                      f'near: "{near}"')

    def finish(self) -> None:
        if self.peek()[0] != "end":
            self.syntax()

    def calls(self, name: str) -> bool:
        return self.peek()[0] == "name" and self.peek()[1] == name and self.peek(1) == ("symbol", "(")

    # conditions

    def condition(self) -> Condition:
        left = self.conjunction()
        while self.keyword("OR"):
            left = Logical("OR", left, self.conjunction())
        return left

    def conjunction(self) -> Condition:
        left = self.negation()
        while self.keyword("AND"):
            left = Logical("AND", left, self.negation())
        return left

    def negation(self) -> Condition:
        if self.keyword("NOT"):
            return Not(self.negation())
        return self.primary()

    def primary(self) -> Condition:
        if self.symbol("("):
            inner = self.condition()
            self.expect(")")
            return inner
        kind, text = self.peek()
        if kind == "name" and self.peek(1) == ("symbol", "(") and text != "size":
            return self.function()
        subject = self.operand()
        if self.keyword("BETWEEN"):
            low = self.operand()
            if not self.keyword("AND"):
                self.syntax()
            return self.checked(Between(subject, low, self.operand()))
        if self.keyword("IN"):
            self.expect("(")
            options = [self.operand()]
            while self.symbol(","):
                options.append(self.operand())
            self.expect(")")
            if len(options) > MAX_IN_OPERANDS:
                raise Refused(f"Invalid {self.kind}: The IN operator is provided with too many operands; "
                              f"number of operands: {len(options)}")
            return In(subject, tuple(options))
        kind, text = self.peek()
        if kind == "symbol" and text in COMPARATORS:
            self.take()
            return self.checked(Compare(text, subject, self.operand()))
        self.syntax()

    def checked(self, condition: Compare | Between) -> Condition:
        """Refuse what DynamoDB refuses before reading any item: an ordering comparison with a value
        that is not a string, a number or a binary; ``BETWEEN`` bounds the wrong way round."""
        op = condition.op if isinstance(condition, Compare) else "BETWEEN"
        operands = ((condition.left, condition.right) if isinstance(condition, Compare)
                    else (condition.subject, condition.low, condition.high))
        if op not in ("=", "<>"):
            for operand in operands:
                if isinstance(operand, Const) and only(operand.value)[0] not in ORDERED:
                    raise Refused(f"Invalid {self.kind}: Incorrect operand type for operator or function; "
                                  f"operator or function: {op}, operand type: {only(operand.value)[0]}")
        if isinstance(condition, Between) and isinstance(condition.low, Const) and isinstance(condition.high, Const):
            low, high = condition.low.value, condition.high.value
            if only(low)[0] == only(high)[0] and order(low) > order(high):
                raise Refused(f"Invalid {self.kind}: The BETWEEN operator requires upper bound to be greater than or "
                              f"equal to lower bound; lower bound operand: AttributeValue: {show(low)}, upper bound "
                              f"operand: AttributeValue: {show(high)}")
        return condition

    def function(self) -> Call:
        name = self.take()[1]
        if name not in CONDITION_FUNCTIONS:
            if name in ("if_not_exists", "list_append"):
                raise Refused(f"Invalid {self.kind}: The function is not allowed to be used this way in an "
                              f"expression; function: {name}")
            raise Refused(f"Invalid {self.kind}: Invalid function name; function: {name}")
        self.expect("(")
        args = [self.operand()]
        while self.symbol(","):
            args.append(self.operand())
        self.expect(")")
        if len(args) != CONDITION_FUNCTIONS[name]:
            raise Refused(f"Invalid {self.kind}: Incorrect number of operands for operator or function; "
                          f"operator or function: {name}, number of operands: {len(args)}")
        if not isinstance(args[0], Attr):
            raise Refused(f"Invalid {self.kind}: Operator or function requires a document path; "
                          f"operator or function: {name}")
        second = args[1] if len(args) > 1 else None
        if name == "attribute_type" and (not isinstance(second, Const) or second.value.get("S") not in TYPES):
            shown = show(second.value) if isinstance(second, Const) else "a path"
            raise Refused(f"Invalid {self.kind}: Invalid attribute type name found; type: {shown}, "
                          f"valid types: {{ B,NULL,SS,BOOL,L,BS,N,NS,S,M }}")
        if name == "begins_with" and isinstance(second, Const) and only(second.value)[0] not in ("S", "B"):
            raise Refused(f"Invalid {self.kind}: Incorrect operand type for operator or function; "
                          f"operator or function: begins_with, operand type: {only(second.value)[0]}")
        return Call(name, tuple(args))

    def operand(self) -> Operand:
        kind, text = self.peek()
        if kind == "value":
            self.take()
            return Const(self.placeholders.value(text, self.kind))
        if self.calls("size"):
            self.take()
            self.expect("(")
            path = self.path()
            self.expect(")")
            return Size(path)
        if kind == "name" and self.peek(1) == ("symbol", "("):
            raise Refused(f"Invalid {self.kind}: The function is not allowed to be used this way in an expression; "
                          f"function: {text}")
        return Attr(self.path())

    def path(self) -> Path:
        elements: list[Element] = [self.attribute()]
        while True:
            if self.symbol("."):
                elements.append(self.attribute())
            elif self.symbol("["):
                kind, text = self.take()
                if kind != "index":
                    self.at -= 1
                    self.syntax()
                elements.append(int(text))
                self.expect("]")
            else:
                return tuple(elements)

    def attribute(self) -> str:
        kind, text = self.take()
        if kind == "placeholder":
            return self.placeholders.name(text, self.kind)
        if kind == "name":
            if text.upper() in RESERVED:
                raise Refused(f"Invalid {self.kind}: Attribute name is a reserved keyword; reserved keyword: {text}")
            return text
        self.at -= 1
        self.syntax()

    # updates

    def update(self) -> Update:
        clauses: dict[str, list[Any]] = {}
        while self.peek()[0] != "end":
            kind, text = self.take()
            clause = text.upper() if kind == "name" else ""
            if clause not in ("SET", "REMOVE", "ADD", "DELETE"):
                self.at -= 1
                self.syntax()
            if clause in clauses:
                raise Refused(f'Invalid UpdateExpression: The "{clause}" section can only be used once in an update '
                              f"expression;")
            actions: list[Any] = []
            clauses[clause] = actions
            while True:
                path = self.path()
                if clause == "SET":
                    self.expect("=")
                    actions.append((path, self.set_value()))
                elif clause == "REMOVE":
                    actions.append(path)
                else:
                    kind, text = self.take()
                    if kind != "value":
                        self.at -= 1
                        self.syntax()
                    actions.append((path, self.placeholders.value(text, self.kind)))
                if not self.symbol(","):
                    break
        update = Update(tuple(clauses.get("SET", [])), tuple(clauses.get("REMOVE", [])),
                        tuple(clauses.get("ADD", [])), tuple(clauses.get("DELETE", [])))
        for label, changes, allowed in (("ADD", update.adds, ("N", *SETS)), ("DELETE", update.deletes, SETS)):
            for _, value in changes:
                if only(value)[0] not in allowed:
                    raise Refused(f"Invalid UpdateExpression: Incorrect operand type for operator or function; "
                                  f"operator: {label}, operand type: {only(value)[0]}")
        return update

    def set_value(self) -> SetValue:
        left = self.update_operand()
        for op in ("+", "-"):
            if self.symbol(op):
                right = self.update_operand()
                for side in (left, right):
                    if isinstance(side, Const) and only(side.value)[0] != "N":
                        raise Refused(f"Invalid UpdateExpression: Incorrect operand type for operator or function; "
                                      f"operator or function: {op}, operand type: {only(side.value)[0]}")
                return Arithmetic(op, left, right)
        return left

    def update_operand(self) -> UpdateOperand:
        kind, text = self.peek()
        if kind == "value":
            self.take()
            return Const(self.placeholders.value(text, self.kind))
        if kind == "name" and self.peek(1) == ("symbol", "("):
            self.take()
            self.take()
            if text == "if_not_exists":
                path = self.path()
                self.expect(",")
                fallback = self.update_operand()
                self.expect(")")
                return IfNotExists(path, fallback)
            if text == "list_append":
                first = self.update_operand()
                self.expect(",")
                second = self.update_operand()
                self.expect(")")
                for side in (first, second):
                    if isinstance(side, Const) and only(side.value)[0] != "L":
                        raise Refused(f"Invalid UpdateExpression: Incorrect operand type for operator or function; "
                                      f"operator or function: list_append, operand type: {only(side.value)[0]}")
                return ListAppend(first, second)
            raise Refused(f"Invalid UpdateExpression: Invalid function name; function: {text}")
        return Attr(self.path())


def parse_condition(text: str, kind: str, placeholders: Placeholders) -> Condition:
    parser = Parser(text, kind, placeholders)
    condition = parser.condition()
    parser.finish()
    return condition


def parse_update(text: str, placeholders: Placeholders, keys: Sequence[str]) -> Update:
    """An ``UpdateExpression``, refused where it changes a key attribute or two of its paths
    overlap (one is the other, or inside it)."""
    parser = Parser(text, "UpdateExpression", placeholders)
    update = parser.update()
    parser.finish()
    targets = update.targets()
    for path in targets:
        if path[0] in keys:
            raise Refused(f"One or more parameter values were invalid: Cannot update attribute {path[0]}. "
                          f"This attribute is part of the key")
    for i, one in enumerate(targets):
        for two in targets[i + 1:]:
            if one[:len(two)] == two or two[:len(one)] == one:
                raise Refused(f"Invalid UpdateExpression: Two document paths overlap with each other; must remove or "
                              f"rewrite one of these paths; path one: {show_path(one)}, path two: {show_path(two)}")
    return update


# --- expressions: evaluation ---------------------------------------------------------------------------


def operand_value(operand: Operand, item: Mapping[str, AttributeValue] | None) -> AttributeValue | None:
    if isinstance(operand, Const):
        return operand.value
    if isinstance(operand, Attr):
        return find(item, operand.path)
    found = find(item, operand.path)
    if found is None:
        return None
    kind, content = only(found)
    if kind in ("S", "B", "L", "M", *SETS):
        return {"N": str(len(content))}
    return None


def ordered(op: str, a: AttributeValue | None, b: AttributeValue | None) -> bool:
    """``a op b`` for ``< <= > >=``: false unless both are strings, numbers or binaries of one type."""
    if a is None or b is None or only(a)[0] != only(b)[0] or only(a)[0] not in ORDERED:
        return False
    x, y = order(a), order(b)
    return bool({"<": x < y, "<=": x <= y, ">": x > y, ">=": x >= y}[op])


def holds(condition: Condition, item: Mapping[str, AttributeValue] | None) -> bool:
    """Does ``condition`` hold on ``item`` (None: no item)?"""
    if isinstance(condition, Logical):
        if condition.op == "AND":
            return holds(condition.left, item) and holds(condition.right, item)
        return holds(condition.left, item) or holds(condition.right, item)
    if isinstance(condition, Not):
        return not holds(condition.inner, item)
    if isinstance(condition, Compare):
        left, right = operand_value(condition.left, item), operand_value(condition.right, item)
        if condition.op in ("=", "<>"):
            equal = left is not None and right is not None and same(left, right)
            return equal if condition.op == "=" else not equal
        return ordered(condition.op, left, right)
    if isinstance(condition, Between):
        subject = operand_value(condition.subject, item)
        return (ordered(">=", subject, operand_value(condition.low, item))
                and ordered("<=", subject, operand_value(condition.high, item)))
    if isinstance(condition, In):
        subject = operand_value(condition.subject, item)
        return subject is not None and any(
            (option := operand_value(o, item)) is not None and same(subject, option) for o in condition.options)
    return called(condition, item)


def called(call: Call, item: Mapping[str, AttributeValue] | None) -> bool:
    found = operand_value(call.args[0], item)
    if call.name == "attribute_exists":
        return found is not None
    if call.name == "attribute_not_exists":
        return found is None
    argument = operand_value(call.args[1], item)
    if found is None or argument is None:
        return False
    kind, content = only(found)
    other, wanted = only(argument)
    if call.name == "attribute_type":
        return bool(kind == wanted)
    if call.name == "begins_with":
        return kind == other and kind in ("S", "B") and bool(content.startswith(wanted))
    if kind in ("S", "B"):
        return kind == other and wanted in content
    if kind in SETS:
        return other == kind[0] and member(kind, wanted, content)
    if kind == "L":
        return any(same(element, argument) for element in content)
    return False


def compute(value: SetValue, item: Mapping[str, AttributeValue]) -> AttributeValue:
    """A ``SET`` action's value, read from ``item`` (the item before the update)."""
    if isinstance(value, Const):
        return clone(value.value)
    if isinstance(value, Attr):
        found = find(item, value.path)
        if found is None:
            raise Invalid(NOT_IN_ITEM)
        return clone(found)
    if isinstance(value, IfNotExists):
        found = find(item, value.path)
        return clone(found) if found is not None else compute(value.fallback, item)
    if isinstance(value, ListAppend):
        first, second = compute(value.first, item), compute(value.second, item)
        operands_of(first, second, "L", "list_append")
        return {"L": only(first)[1] + only(second)[1]}
    left, right = compute(value.left, item), compute(value.right, item)
    operands_of(left, right, "N", value.op)
    x, y = Decimal(only(left)[1]), Decimal(only(right)[1])
    return {"N": number_text(EXACT.add(x, y) if value.op == "+" else EXACT.subtract(x, y))}


def operands_of(first: AttributeValue, second: AttributeValue, kind: str, operator: str) -> None:
    """Refuse (as :class:`Invalid`) an operand of ``+``, ``-`` or ``list_append`` that is not of
    ``kind`` once read from the item."""
    for operand in (first, second):
        if only(operand)[0] != kind:
            raise Invalid("Invalid UpdateExpression: Incorrect operand type for operator or function; operator or "
                          f"function: {operator}, operand type: {only(operand)[0]}")


def _removal_order(path: Path) -> list[tuple[int, Any]]:
    """Sorts the paths of one list by their indexes, the highest first: each is removed by its index
    in the item as it was."""
    return [(1, -step) if isinstance(step, int) else (0, step) for step in path]


def apply(update: Update, before: Item) -> Item:
    """The item after ``update`` (``before``: the stored item, or the key of an item to create): a
    new item, sharing with ``before`` every value the update leaves as it was (``before`` is not
    changed: :func:`place` and :func:`remove` copy what they change on the way)."""
    after = dict(before)
    for path, expression in update.sets:
        place(after, path, compute(expression, before))
    for path in sorted(update.removes, key=_removal_order):
        remove(after, path)
    for path, value in update.adds:
        current = find(after, path)
        place(after, path, clone(value) if current is None else added(current, value))
    for path, value in update.deletes:
        current = find(after, path)
        if current is None:
            continue
        kind, content = only(current)
        if kind != only(value)[0]:
            raise Invalid(WRONG_TYPE)
        kept = [element for element in content if not member(kind, element, only(value)[1])]
        if kept:
            place(after, path, {kind: kept})
        else:
            remove(after, path)
    return after


def added(current: AttributeValue, value: AttributeValue) -> AttributeValue:
    """``ADD``: a number's sum, or a set's union."""
    kind, content = only(current)
    if kind != only(value)[0]:
        raise Invalid(WRONG_TYPE)
    if kind == "N":
        return {"N": number_text(EXACT.add(Decimal(content), Decimal(only(value)[1])))}
    return {kind: content + [e for e in only(value)[1] if not member(kind, e, content)]}


# --- tables ------------------------------------------------------------------------------------------


class Above:
    """Sorts after every value: ``(v, ABOVE)`` is past every position that starts with ``v``."""

    def __lt__(self, other: object) -> bool:
        return False

    def __gt__(self, other: object) -> bool:
        return True


ABOVE = Above()


class Sorted:
    """Items in key order: the sorted positions and the item at each."""

    __slots__ = ("items", "positions")

    def __init__(self) -> None:
        self.positions: list[tuple[Any, ...]] = []
        self.items: dict[tuple[Any, ...], Item] = {}

    def put(self, position: tuple[Any, ...], item: Item) -> None:
        if position not in self.items:
            bisect.insort(self.positions, position)
        self.items[position] = item

    def drop(self, position: tuple[Any, ...]) -> None:
        if self.items.pop(position, None) is not None:
            del self.positions[bisect.bisect_left(self.positions, position)]


@dataclass
class Index:
    """A global secondary index: its key, its projection, and its items by partition; and, when it
    lags behind its table (:meth:`FakeDynamo.lag_indexes`), the changes it has yet to take."""

    name: str
    hash: str
    range: str | None
    projection: str
    include: frozenset[str]
    partitions: dict[Any, Sorted] = field(default_factory=dict)
    behind: list[tuple[float, int, Item | None, Item | None]] = field(default_factory=list)
    """Changes not taken yet, as a heap: when each is taken, in what order, the item before and after."""
    last: dict[tuple[Any, tuple[Any, ...]], float] = field(default_factory=dict)
    """Per item behind (by its place in the table): when its last change is taken. An item's changes
    reach the index in the order the table took them."""


@dataclass
class Table:
    """A table's schema, its items by partition (each in sort key order), its indexes and its
    stream's records."""

    name: str
    hash: str
    range: str | None
    types: dict[str, str]
    indexes: dict[str, Index]
    view: str | None
    arn: str
    partitions: dict[Any, Sorted] = field(default_factory=dict)
    records: list[dict[str, Any]] = field(default_factory=list)
    sequence: int = 0
    changes_behind: Iterator[int] = field(default_factory=itertools.count)
    """Numbers the changes an index takes later, in the order the table took them."""
    past: dict[Any, dict[tuple[Any, ...], list[tuple[float, Item | None]]]] = field(default_factory=dict)
    """Per partition and place, when kept (:meth:`FakeDynamo.stale_reads_within`): the versions an
    eventually consistent read may still see, each with when it was replaced, oldest first."""

    @property
    def keys(self) -> tuple[str, ...]:
        return (self.hash,) if self.range is None else (self.hash, self.range)

    def locate(self, item: Mapping[str, AttributeValue]) -> tuple[Any, tuple[Any, ...]]:
        """An item's partition and its position there."""
        position = () if self.range is None else (order(item[self.range]),)
        return order(item[self.hash]), position

    def get(self, item: Mapping[str, AttributeValue]) -> Item | None:
        """The stored item with ``item``'s key."""
        partition, position = self.locate(item)
        found = self.partitions.get(partition)
        return found.items.get(position) if found is not None else None

    def index_key(self, index: Index, item: Mapping[str, AttributeValue]) -> tuple[Any, tuple[Any, ...]] | None:
        """An item's partition and position in ``index``; None if it lacks the index's key."""
        if not self.indexed(index, item):
            return None
        partition, position = self.locate(item)
        head = () if index.range is None else (order(item[index.range]),)
        return order(item[index.hash]), (*head, partition, *position)

    def commit(self, before: Item | None, after: Item | None, lag: Callable[[str], float] | None = None,
               now: float = 0.0, keep: float = 0.0) -> bool:
        """Store ``after`` in place of ``before`` (None: no item; both have one key), in the table
        and its indexes (each ``lag(index)`` seconds from ``now`` later, when given), keeping
        ``before`` for ``keep`` seconds for the eventually consistent reads; False, and nothing
        stored, when it changes nothing."""
        if same_item(before, after):
            return False
        place = self.locate(cast(Item, after if after is not None else before))
        if keep > 0.0:
            versions = self.past.setdefault(place[0], {}).setdefault(place[1], [])
            versions[:] = [version for version in versions if version[0] > now - keep]
            versions.append((now, before))
        self._store(self.partitions, *place, after)
        for index in self.indexes.values():
            if not (self.indexed(index, before) or self.indexed(index, after)):
                continue  # the index holds the item neither before nor after
            late = lag(index.name) if lag is not None else 0.0
            if late <= 0.0 and place not in index.last:
                self._index(index, before, after)
                continue
            at = max(now + late, index.last.get(place, now))
            index.last[place] = at
            heapq.heappush(index.behind, (at, next(self.changes_behind), before, after))
        return True

    def as_of(self, partition: Any, when: float) -> Sorted | None:
        """A partition's items as they were at ``when`` (as far as :attr:`past` keeps them): what an
        eventually consistent read may see."""
        current, past = self.partitions.get(partition), self.past.get(partition) or {}
        then = Sorted()
        for position in {*(current.positions if current is not None else ()), *past}:
            item = current.items.get(position) if current is not None else None
            for replaced, version in past.get(position, ()):
                if replaced > when:  # the first version replaced after ``when``: the one then
                    item = version
                    break
            if item is not None:
                then.put(position, item)
        return then if then.positions else None

    @staticmethod
    def indexed(index: Index, item: Mapping[str, AttributeValue] | None) -> bool:
        """Whether ``index`` holds ``item`` (it has the index's key)."""
        return item is not None and index.hash in item and (index.range is None or index.range in item)

    def catch_up(self, index: Index, now: float) -> None:
        """``index`` takes the changes due by ``now``, in the order they come due."""
        while index.behind and index.behind[0][0] <= now:
            at, _, before, after = heapq.heappop(index.behind)
            self._index(index, before, after)
            place = self.locate(cast(Item, after if after is not None else before))
            if index.last.get(place) == at:
                del index.last[place]

    def _index(self, index: Index, before: Item | None, after: Item | None) -> None:
        if before is not None and (at := self.index_key(index, before)) is not None:
            self._store(index.partitions, at[0], at[1], None)
        if after is not None and (at := self.index_key(index, after)) is not None:
            self._store(index.partitions, at[0], at[1], after)

    @staticmethod
    def _store(partitions: dict[Any, Sorted], partition: Any, position: tuple[Any, ...], item: Item | None) -> None:
        if item is not None:
            partitions.setdefault(partition, Sorted()).put(position, item)
            return
        found = partitions.get(partition)
        if found is not None:
            found.drop(position)
            if not found.items:
                del partitions[partition]

    def projected(self, index: Index | None, item: Item) -> Item:
        """What an index keeps of an item (the table: all of it)."""
        if index is None or index.projection == "ALL":
            return item
        kept = {*self.keys, index.hash, *((index.range,) if index.range else ()), *index.include}
        return {name: value for name, value in item.items() if name in kept}

    def key_of(self, index: Index | None, item: Mapping[str, AttributeValue]) -> Item:
        """A ``LastEvaluatedKey``: the item's key, and its index key when reading an index."""
        names = [*self.keys, *((index.hash,) if index else ()), *((index.range,) if index and index.range else ())]
        return {name: clone(item[name]) for name in names}

    def record(self, before: Item | None, after: Item | None, region: str, now: float | None) -> None:
        """The stream's record of a committed change."""
        if self.view is None:
            return
        self.sequence += 1
        sequence = str(FIRST_SEQUENCE + self.sequence)
        item = cast(Item, after if after is not None else before)
        # the images are the stored items themselves: a stored item is never changed in place (a
        # write stores a new one, :func:`apply` works on a clone), and :meth:`FakeDynamo.records`
        # copies what it gives
        body: dict[str, Any] = {"Keys": {name: item[name] for name in self.keys}}
        if after is not None and self.view in ("NEW_IMAGE", "NEW_AND_OLD_IMAGES"):
            body["NewImage"] = after
        if before is not None and self.view in ("OLD_IMAGE", "NEW_AND_OLD_IMAGES"):
            body["OldImage"] = before
        body["SequenceNumber"] = sequence
        body["SizeBytes"] = sum(item_size(body[part]) for part in ("Keys", "NewImage", "OldImage") if part in body)
        body["StreamViewType"] = self.view
        if now is not None:
            body["ApproximateCreationDateTime"] = int(now)
        name = "INSERT" if before is None else "REMOVE" if after is None else "MODIFY"
        self.records.append({
            "eventID": hashlib.sha256(f"{self.arn}#{sequence}".encode()).hexdigest()[:32], "eventName": name,
            "eventVersion": "1.1", "eventSource": "aws:dynamodb", "awsRegion": region, "dynamodb": body,
            "eventSourceARN": self.arn})


def check_key(table: Table, key: Mapping[str, AttributeValue]) -> None:
    """Refuse a ``Key`` that is not exactly the table's key, of its types."""
    if set(key) != set(table.keys) or any(only(key[name])[0] != table.types[name] for name in table.keys):
        raise Refused(KEY_MISMATCH)
    check_key_values(table, key)


def check_key_values(table: Table, item: Mapping[str, AttributeValue]) -> None:
    for name, limit, label in ((table.hash, MAX_PARTITION_KEY_BYTES, "Size of hashkey has exceeded the maximum size "
                                                                      f"limit of{MAX_PARTITION_KEY_BYTES} bytes"),
                               (table.range, MAX_SORT_KEY_BYTES, "Aggregated size of all range keys has exceeded the "
                                                                 f"size limit of {MAX_SORT_KEY_BYTES} bytes")):
        if name is None:
            continue
        size = value_size(item[name])
        if size == 0:
            raise Refused("One or more parameter values are not valid. The AttributeValue for a key attribute cannot "
                          f"contain an empty string value. Key: {name}")
        if size > limit:
            raise Refused(f"One or more parameter values were invalid: {label}")


def check_item(table: Table, item: Item, *, updated: bool = False) -> None:
    """Refuse an item DynamoDB would not store: a key attribute missing, of another type or empty;
    an index key attribute of another type or empty; more than 400 KB. After an update (``updated``)
    each refusal depends on the stored item: an :class:`Invalid`."""
    refusal = Invalid if updated else Refused
    for name in table.keys:
        if name not in item:
            raise refusal(f"One or more parameter values were invalid: Missing the key {name} in the item")
        if only(item[name])[0] != table.types[name]:
            raise refusal(f"One or more parameter values were invalid: Type mismatch for key {name} expected: "
                          f"{table.types[name]} actual: {only(item[name])[0]}")
    check_key_values(table, item)
    for index in table.indexes.values():
        for attribute in (index.hash, index.range):
            if attribute is None or attribute not in item:
                continue
            kind = only(item[attribute])[0]
            if kind != table.types[attribute]:
                raise refusal(f"One or more parameter values were invalid: Type mismatch for Index Key {attribute} "
                              f"Expected: {table.types[attribute]} Actual: {kind} IndexName: {index.name}")
            if value_size(item[attribute]) == 0:
                raise refusal("One or more parameter values are not valid. A value specified for a secondary index "
                              "key is not supported. The AttributeValue for a key attribute cannot contain an empty "
                              f"string value. IndexName: {index.name}, IndexKey: {attribute}")
    if item_size(item) > MAX_ITEM_BYTES:
        raise refusal("Item size to update has exceeded the maximum allowed size" if updated
                      else "Item size has exceeded the maximum allowed size")


# --- key conditions ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class KeyRange:
    """A sort key's condition in a query: ``= < <= > >=``, ``BETWEEN`` or ``begins_with``."""

    op: str
    values: tuple[AttributeValue, ...]

    def holds(self, value: AttributeValue) -> bool:
        if self.op == "begins_with":
            return bool(order(value).startswith(order(self.values[0])))
        if self.op == "BETWEEN":
            return bool(order(self.values[0]) <= order(value) <= order(self.values[1]))
        if self.op == "=":
            return same(value, self.values[0])
        return ordered(self.op, value, self.values[0])

    def bounds(self, positions: list[tuple[Any, ...]]) -> tuple[int, int]:
        """The slice of ``positions`` (sorted, each starting with the sort key) it can hold for."""
        first = order(self.values[0])
        low, high = 0, len(positions)
        if self.op in ("=", ">=", "BETWEEN", "begins_with"):
            low = bisect.bisect_left(positions, (first,))
        if self.op == ">":
            low = bisect.bisect_left(positions, (first, ABOVE))
        if self.op in ("=", "<="):
            high = bisect.bisect_left(positions, (first, ABOVE))
        if self.op == "<":
            high = bisect.bisect_left(positions, (first,))
        if self.op == "BETWEEN":
            high = bisect.bisect_left(positions, (order(self.values[1]), ABOVE))
        if self.op == "begins_with":
            high = low
            while high < len(positions) and positions[high][0].startswith(first):
                high += 1
        return low, high


def key_condition(condition: Condition, hash_name: str, range_name: str | None,
                  types: Mapping[str, str]) -> tuple[AttributeValue, KeyRange | None]:
    """A query's ``KeyConditionExpression``: the partition key's value and the sort key's range."""
    parts = [condition.left, condition.right] if isinstance(condition, Logical) and condition.op == "AND" else [
        condition]
    found: dict[str, KeyRange] = {}
    for part in parts:
        if isinstance(part, Logical) and part.op == "AND":
            raise Refused("KeyConditionExpressions must only contain one condition per key")
        op = (part.op if isinstance(part, Logical | Compare) else "NOT" if isinstance(part, Not)
              else "IN" if isinstance(part, In) else "BETWEEN" if isinstance(part, Between) else part.name)
        if op in ("OR", "NOT", "IN", "<>", "attribute_exists", "attribute_not_exists", "attribute_type", "contains"):
            raise Refused(f"Invalid operator used in KeyConditionExpression: {op}")
        operands = (part.left, part.right) if isinstance(part, Compare) else (
            (part.subject, part.low, part.high) if isinstance(part, Between) else cast(Call, part).args)
        subject, values = operands[0], operands[1:]
        if not isinstance(subject, Attr) or not all(isinstance(v, Const) for v in values):
            raise Unsupported("a key condition other than <key> <op> :value, <key> BETWEEN :a AND :b or "
                              "begins_with(<key>, :v)")
        name = ".".join(str(step) for step in subject.path)
        if name in found:
            raise Refused("KeyConditionExpressions must only contain one condition per key")
        if name not in (hash_name, range_name):
            raise Refused(f"Query condition missed key schema element: {range_name or hash_name}")
        typed_values = tuple(cast(Const, v).value for v in values)
        if any(only(v)[0] != types[name] for v in typed_values):
            raise Refused("One or more parameter values were invalid: Condition parameter type does not match schema "
                          "type")
        found[name] = KeyRange(op, typed_values)
    if hash_name not in found:
        raise Refused(f"Query condition missed key schema element: {hash_name}")
    if found[hash_name].op != "=":
        raise Refused("Query key condition not supported")
    return found[hash_name].values[0], found.get(range_name) if range_name else None


# --- requests ----------------------------------------------------------------------------------------

ACCOUNT = "123456789012"
EXPRESSION_VALUES = frozenset({"ExpressionAttributeNames", "ExpressionAttributeValues"})
INTERPRETED: dict[str, frozenset[str]] = {
    "CreateTable": frozenset({"TableName", "KeySchema", "AttributeDefinitions", "GlobalSecondaryIndexes",
                              "StreamSpecification", "BillingMode", "ProvisionedThroughput", "OnDemandThroughput",
                              "WarmThroughput", "SSESpecification", "Tags", "TableClass", "DeletionProtectionEnabled"}),
    "GetItem": frozenset({"TableName", "Key", "ConsistentRead"}),
    "PutItem": frozenset({"TableName", "Item", "ConditionExpression", "ReturnValues"}) | EXPRESSION_VALUES,
    "UpdateItem": frozenset({"TableName", "Key", "UpdateExpression", "ConditionExpression", "ReturnValues"})
    | EXPRESSION_VALUES,
    "DeleteItem": frozenset({"TableName", "Key", "ConditionExpression", "ReturnValues"}) | EXPRESSION_VALUES,
    "Query": frozenset({"TableName", "IndexName", "KeyConditionExpression", "FilterExpression", "ScanIndexForward",
                        "Limit", "ExclusiveStartKey", "ConsistentRead", "Select"}) | EXPRESSION_VALUES,
    "Scan": frozenset({"TableName", "IndexName", "FilterExpression", "Limit", "ExclusiveStartKey", "ConsistentRead",
                       "Select"}) | EXPRESSION_VALUES,
    "TransactWriteItems": frozenset({"TransactItems"}),
    "Put": frozenset({"TableName", "Item", "ConditionExpression"}) | EXPRESSION_VALUES,
    "Update": frozenset({"TableName", "Key", "UpdateExpression", "ConditionExpression"}) | EXPRESSION_VALUES,
    "Delete": frozenset({"TableName", "Key", "ConditionExpression"}) | EXPRESSION_VALUES,
    "ConditionCheck": frozenset({"TableName", "Key", "ConditionExpression"}) | EXPRESSION_VALUES,
}
"""The parameters interpreted, per operation (and per kind of transaction item)."""
TOLERATED = {"ReturnConsumedCapacity": "NONE", "ReturnItemCollectionMetrics": "NONE",
             "ReturnValuesOnConditionCheckFailure": "NONE"}
"""Parameters interpreted only with the value that changes nothing."""
VALUE_FIELDS = ("Item", "Key", "ExclusiveStartKey", "ExpressionAttributeValues")
CONDITION_FIELDS = (("KeyConditionExpression", True), ("ConditionExpression", False), ("FilterExpression", False))


@cache
def service_model() -> ServiceModel:
    """DynamoDB's API model as botocore ships it: the parameters and the error shapes."""
    return get_session().get_service_model("dynamodb")


@cache
def client_exceptions() -> BaseClientExceptions:
    """The client's exception classes (``client.exceptions``), one per modeled error code."""
    return ClientExceptionsFactory().create_client_exceptions(service_model())


def client_error(refused: Refused, operation: str) -> ClientError:
    """DynamoDB's refusal as the client raises it: its code's class, the response's shape."""
    response: dict[str, Any] = {"Error": {"Message": refused.message, "Code": refused.code},
                                "ResponseMetadata": {"HTTPStatusCode": 400}, **refused.fields}
    kind = cast(type[ClientError], client_exceptions().from_code(refused.code))
    return kind(response, operation)  # type: ignore[arg-type]


def wire(params: Mapping[str, Any], builder: ConditionExpressionBuilder, names: bool = True) -> dict[str, Any]:
    """A request as the resource's client sends it: condition objects made expressions (their
    placeholders added), values typed (``names``: as :func:`typed` takes it)."""
    out = dict(params)
    for name, is_key in CONDITION_FIELDS:
        condition = out.get(name)
        if isinstance(condition, ConditionBase):
            built = builder.build_expression(condition, is_key_condition=is_key)
            out[name] = built.condition_expression
            for field_name, built_part in (("ExpressionAttributeNames", built.attribute_name_placeholders),
                                           ("ExpressionAttributeValues", built.attribute_value_placeholders)):
                if built_part:
                    out[field_name] = {**out.get(field_name, {}), **built_part}
    for name in VALUE_FIELDS:
        if isinstance(out.get(name), Mapping):
            out[name] = {key: typed(value, names) for key, value in out[name].items()}
    if isinstance(out.get("TransactItems"), list):
        out["TransactItems"] = [
            {op: transaction_item(body, builder, names) if isinstance(body, Mapping) else body
             for op, body in entry.items()}
            if isinstance(entry, Mapping) else entry for entry in out["TransactItems"]]
    return out


STAND_IN: AttributeValue = {"NULL": True}
AV_MEMBERS: dict[str, type | tuple[type, ...]] = {
    "S": str, "N": str, "B": (bytes, bytearray), "SS": list, "NS": list, "BS": list, "M": dict, "L": list,
    "NULL": bool, "BOOL": bool}


def skeleton(request: Mapping[str, Any]) -> dict[str, Any]:
    """The request with each attribute value replaced by one valid stand-in: what botocore's
    validator then checks is the request's own structure (names, enums, lengths, required members);
    the values are checked as botocore checks them, much faster, by :func:`typed` as it types them
    (and :func:`check_attribute_values` where it finds a map's name that is not a string)."""
    out = dict(request)
    for name in VALUE_FIELDS:
        values = out.get(name)
        if isinstance(values, Mapping):
            out[name] = {key: STAND_IN for key in values}
    items = out.get("TransactItems")
    if isinstance(items, list):
        out["TransactItems"] = [
            {op: skeleton(body) if isinstance(body, Mapping) else body for op, body in entry.items()}
            if isinstance(entry, Mapping) else entry for entry in items]
    return out


_VALID: set[tuple[str, str]] = set()
"""The requests' structures botocore's validator passed (each stands for every request of its shape)."""
_VALID_KEPT = 16_384


def validate_structure(operation: str, skeleton: Mapping[str, Any]) -> None:
    """botocore's validation of a request's :func:`skeleton`, once per distinct structure: its
    verdict depends on nothing else, and an application sends the same few structures again and
    again (a structure the validator refused is validated, and refused, every time).

    A structure is told by its ``repr``, which tells the validator's types apart as it does
    (``True`` from ``1``, ``"5"`` from ``5``, a list from a tuple, a set from both); a subclass that
    keeps its base's ``repr`` is one the validator takes as its base."""
    shape = (operation, repr(skeleton))
    if shape in _VALID:
        return
    validate_parameters(dict(skeleton), cast(Shape, service_model().operation_model(operation).input_shape))
    if len(_VALID) >= _VALID_KEPT:
        _VALID.clear()
    _VALID.add(shape)


def check_attribute_values(request: Mapping[str, Any], where: str = "") -> None:
    """Every attribute value of ``request`` is one member of botocore's ``AttributeValue`` union, of
    its type (maps keyed by strings); else botocore's own error (``ParamValidationError``)."""
    for name in VALUE_FIELDS:
        values = request.get(name)
        if isinstance(values, Mapping):
            for key, value in values.items():
                _check_value(value, f"{where}{name}.{key}")
    items = request.get("TransactItems")
    if isinstance(items, list):
        for index, entry in enumerate(items):
            if isinstance(entry, Mapping):
                for op, body in entry.items():
                    if isinstance(body, Mapping):
                        check_attribute_values(body, f"{where}TransactItems[{index}].{op}.")


def _check_value(value: Any, where: str) -> None:
    if not isinstance(value, dict) or len(value) != 1:
        raise ParamValidationError(report=f"Invalid number of parameters set for tagged union structure {where}. "
                                          f"Can only set one of the following keys: {', '.join(AV_MEMBERS)}.")
    ((kind, content),) = value.items()
    wanted = AV_MEMBERS.get(kind)
    if wanted is None:
        raise ParamValidationError(report=f'Unknown parameter in {where}: "{kind}", must be one of: '
                                          f"{', '.join(AV_MEMBERS)}")
    if not isinstance(content, wanted):
        raise ParamValidationError(report=f"Invalid type for parameter {where}.{kind}, value: {content!r}, "
                                          f"type: {type(content)}")
    members: Any = content
    if kind == "M":
        for key, inner in members.items():
            if not isinstance(key, str):
                raise ParamValidationError(report=f"Invalid type for parameter {where}.M, value: {key!r}, "
                                                  f"type: {type(key)}, valid types: <class 'str'>")
            _check_value(inner, f"{where}.M.{key}")
    elif kind == "L":
        for index, inner in enumerate(members):
            _check_value(inner, f"{where}.L[{index}]")
    elif kind in ("SS", "NS", "BS"):
        member = str if kind != "BS" else (bytes, bytearray)
        for element in members:
            if not isinstance(element, member):
                raise ParamValidationError(report=f"Invalid type for parameter {where}.{kind}, value: {element!r}, "
                                                  f"type: {type(element)}")


def transaction_item(body: Mapping[str, Any], builder: ConditionExpressionBuilder,
                     names: bool = True) -> dict[str, Any]:
    """One operation of a transaction, its values typed. A condition object there is refused: boto3
    would put its placeholders beside ``TransactItems``, where DynamoDB does not read them."""
    if any(isinstance(body.get(name), ConditionBase) for name, _ in CONDITION_FIELDS):
        raise Unsupported("a condition object inside a transaction's item")
    return wire(body, builder, names)


def interpreted(where: str, params: Mapping[str, Any]) -> None:
    """Raise :class:`Unsupported` for a parameter that is not interpreted."""
    for name, value in params.items():
        if name not in INTERPRETED[where] and TOLERATED.get(name) != value:
            shown = f" {value!r}" if name in TOLERATED else ""
            raise Unsupported(f"{where}: the parameter {name}{shown} is not interpreted")


def placeholders(params: Mapping[str, Any]) -> Placeholders:
    return Placeholders(params.get("ExpressionAttributeNames") or {}, params.get("ExpressionAttributeValues") or {})


def checked_placeholders(found: Placeholders, params: Mapping[str, Any]) -> None:
    found.check("ExpressionAttributeNames" in params, "ExpressionAttributeValues" in params)


def paths_in(condition: Condition) -> Iterator[Path]:
    """Every document path a condition reads."""
    if isinstance(condition, Logical):
        yield from paths_in(condition.left)
        yield from paths_in(condition.right)
        return
    if isinstance(condition, Not):
        yield from paths_in(condition.inner)
        return
    operands: tuple[Operand, ...] = (
        (condition.left, condition.right) if isinstance(condition, Compare)
        else (condition.subject, condition.low, condition.high) if isinstance(condition, Between)
        else (condition.subject, *condition.options) if isinstance(condition, In) else condition.args)
    for operand in operands:
        if isinstance(operand, Attr | Size):
            yield operand.path


@dataclass
class Write:
    """One write of a request (or a transaction's condition check), read and checked, to run on the
    stored item."""

    table: Table
    kind: str  # Put, Update, Delete, ConditionCheck
    key: Item
    condition: Condition | None = None
    item: Item | None = None
    update: Update | None = None

    def run(self, before: Item | None) -> Item | None:
        """The item after the write (None: no item); :class:`ConditionFailed` if its condition does
        not hold, :class:`Invalid` if its update cannot apply to the stored item."""
        if self.condition is not None and not holds(self.condition, before):
            raise ConditionFailed
        if self.kind == "Put":
            return self.item
        if self.kind == "Delete":
            return None
        if self.update is None:
            return before
        after = apply(self.update, before if before is not None else self.key)
        check_item(self.table, after, updated=True)
        return after


class Service:
    """The tables and the operations on them, requests and answers in typed form, one at a time."""

    def __init__(self, region: str, clock: Callable[[], float] | None) -> None:
        self.region, self.clock = region, clock
        self.tables: dict[str, Table] = {}
        self.lock = threading.RLock()
        self.changed: list[tuple[str, dict[str, Any]]] | None = None
        """Where every change is noted (the table and the item's key), once someone watches."""
        self.lag: Callable[[str, str], float] | None = None
        """How many seconds an index takes a change after its table (:meth:`FakeDynamo.lag_indexes`)."""
        self.stale: Callable[[str], float] | None = None
        """How many seconds old is what an eventually consistent read of a table sees
        (:meth:`FakeDynamo.stale_reads_within`)."""
        self.keep = 0.0
        """How long a replaced version is kept for those reads, in seconds."""
        self.stale_reads: Counter[str] = Counter()
        """Per index: the reads of it made while it had changes still to take."""

    def table(self, name: str) -> Table:
        found = self.tables.get(name)
        if found is None:
            raise Refused(NOT_FOUND, "ResourceNotFoundException", message=NOT_FOUND)
        return found

    def commit(self, table: Table, before: Item | None, after: Item | None) -> None:
        lag = self.lag
        if table.commit(before, after, None if lag is None else partial(lag, table.name), self.now(), self.keep):
            table.record(before, after, self.region, self.clock() if self.clock is not None else None)
            if self.changed is not None:
                self.changed.append((table.name, plain({k: v for k, v in cast(Item, after or before).items()
                                                        if k in table.keys})))

    # tables

    def create_table(self, params: Mapping[str, Any]) -> dict[str, Any]:
        name = params["TableName"]
        if name in self.tables:
            raise Refused(f"Table already exists: {name}", "ResourceInUseException", message=f"Table already exists: "
                                                                                             f"{name}")
        types = {d["AttributeName"]: d["AttributeType"] for d in params.get("AttributeDefinitions", [])}
        hash_name, range_name = key_schema(params["KeySchema"])
        indexes: dict[str, Index] = {}
        for spec in params.get("GlobalSecondaryIndexes", []):
            index_hash, index_range = key_schema(spec["KeySchema"])
            projection = spec["Projection"].get("ProjectionType", "ALL")
            include = frozenset(spec["Projection"].get("NonKeyAttributes", []))
            if projection not in ("ALL", "KEYS_ONLY", "INCLUDE") or bool(include) != (projection == "INCLUDE"):
                raise Refused(f"One or more parameter values were invalid: the projection of index {spec['IndexName']}"
                              " is not ALL, KEYS_ONLY, or INCLUDE with NonKeyAttributes")
            indexes[spec["IndexName"]] = Index(spec["IndexName"], index_hash, index_range, projection, include)
        used = {hash_name, range_name, *(i.hash for i in indexes.values()), *(i.range for i in indexes.values())}
        used.discard(None)
        if set(types) != used:
            raise Refused("One or more parameter values were invalid: Some index key attributes are not defined in "
                          "AttributeDefinitions, or some AttributeDefinitions are not used")
        if any(kind not in ORDERED for kind in types.values()):
            raise Refused("1 validation error detected: Member must satisfy enum value set: [B, N, S]")
        stream = params.get("StreamSpecification") or {}
        view = stream.get("StreamViewType") if stream.get("StreamEnabled") else None
        if stream.get("StreamEnabled") and view not in VIEWS:
            raise Refused("1 validation error detected: the stream's StreamViewType must be one of "
                          + ", ".join(VIEWS))
        arn = f"arn:aws:dynamodb:{self.region}:{ACCOUNT}:table/{name}"
        self.tables[name] = Table(name, hash_name, range_name, types, indexes, view,
                                  f"{arn}/stream/1970-01-01T00:00:00.000")
        description: dict[str, Any] = {
            "TableName": name, "TableArn": arn, "TableStatus": "ACTIVE", "KeySchema": params["KeySchema"],
            "AttributeDefinitions": params.get("AttributeDefinitions", []), "ItemCount": 0, "TableSizeBytes": 0}
        if indexes:
            description["GlobalSecondaryIndexes"] = [{**spec, "IndexStatus": "ACTIVE"}
                                                     for spec in params["GlobalSecondaryIndexes"]]
        if view is not None:
            description["StreamSpecification"] = {"StreamEnabled": True, "StreamViewType": view}
            description["LatestStreamArn"] = self.tables[name].arn
        return {"TableDescription": description}

    # items

    def plan(self, kind: str, params: Mapping[str, Any]) -> Write:
        """A write of a request, its expressions read and its item or key checked."""
        table = self.table(params["TableName"])
        found = placeholders(params)
        condition = (parse_condition(params["ConditionExpression"], "ConditionExpression", found)
                     if "ConditionExpression" in params else None)
        if kind == "Put":
            item = params["Item"]
            check_item(table, item)
            write = Write(table, kind, {name: item[name] for name in table.keys}, condition, item=item)
        else:
            key = params["Key"]
            check_key(table, key)
            update = None
            if kind == "Update":
                update = (parse_update(params["UpdateExpression"], found, table.keys)
                          if "UpdateExpression" in params else Update())
            write = Write(table, kind, key, condition, update=update)
        checked_placeholders(found, params)
        return write

    def write(self, kind: str, params: Mapping[str, Any], returns: tuple[str, ...]) -> tuple[Write, Item | None,
                                                                                                Item | None, str]:
        answer = params.get("ReturnValues", "NONE")
        if answer not in returns:
            raise Refused("Return values set to invalid value")
        write = self.plan(kind, params)
        before = write.table.get(write.key)
        try:
            after = write.run(before)
        except ConditionFailed:
            raise Refused(CONDITION_FAILED, "ConditionalCheckFailedException", message=CONDITION_FAILED) from None
        self.commit(write.table, before, after)
        return write, before, after, answer

    def get_item(self, params: Mapping[str, Any]) -> dict[str, Any]:
        table = self.table(params["TableName"])
        check_key(table, params["Key"])
        when = self.seen_as_of(table, params)
        if when is None:
            found = table.get(params["Key"])
        else:
            partition, position = table.locate(params["Key"])
            then = table.as_of(partition, when)
            found = then.items.get(position) if then is not None else None
        return {} if found is None else {"Item": found}

    def put_item(self, params: Mapping[str, Any]) -> dict[str, Any]:
        _, before, _, answer = self.write("Put", params, ("NONE", "ALL_OLD"))
        return {"Attributes": before} if answer == "ALL_OLD" and before is not None else {}

    def delete_item(self, params: Mapping[str, Any]) -> dict[str, Any]:
        _, before, _, answer = self.write("Delete", params, ("NONE", "ALL_OLD"))
        return {"Attributes": before} if answer == "ALL_OLD" and before is not None else {}

    def update_item(self, params: Mapping[str, Any]) -> dict[str, Any]:
        write, before, after, answer = self.write("Update", params,
                                                  ("NONE", "ALL_OLD", "UPDATED_OLD", "ALL_NEW", "UPDATED_NEW"))
        targets = write.update.targets() if write.update is not None else []
        shown = {"NONE": None, "ALL_OLD": before, "ALL_NEW": after, "UPDATED_OLD": project(before, targets),
                 "UPDATED_NEW": project(after, targets)}[answer]
        return {"Attributes": shown} if shown else {}

    def transact_write_items(self, params: Mapping[str, Any]) -> dict[str, Any]:
        entries = params["TransactItems"]
        if len(entries) > MAX_TRANSACTION_ITEMS:
            raise Refused("1 validation error detected: Value at 'transactItems' failed to satisfy constraint: "
                          f"Member must have length less than or equal to {MAX_TRANSACTION_ITEMS}")
        writes: list[Write] = []
        seen: set[tuple[str, Any, tuple[Any, ...]]] = set()
        for entry in entries:
            if len(entry) != 1:
                raise Refused("TransactItems can only contain one of Check, Put, Update or Delete")
            ((kind, body),) = entry.items()
            interpreted(kind, body)
            write = self.plan(kind, body)
            identity = (write.table.name, *write.table.locate(write.key))
            if identity in seen:
                raise Refused("Transaction request cannot include multiple operations on one item")
            seen.add(identity)
            writes.append(write)
        reasons: list[dict[str, str]] = []
        changes: list[tuple[Table, Item | None, Item | None]] = []
        for write in writes:
            before = write.table.get(write.key)
            try:
                changes.append((write.table, before, write.run(before)))
                reasons.append({"Code": "None"})
            except ConditionFailed:
                reasons.append({"Code": "ConditionalCheckFailed", "Message": CONDITION_FAILED})
            except Invalid as invalid:
                reasons.append({"Code": "ValidationError", "Message": invalid.message})
        if any(reason["Code"] != "None" for reason in reasons):
            message = ("Transaction cancelled, please refer cancellation reasons for specific reasons ["
                       + ", ".join(reason["Code"] for reason in reasons) + "]")
            raise Refused(message, "TransactionCanceledException", Message=message, CancellationReasons=reasons)
        for table, before, after in changes:
            self.commit(table, before, after)
        return {}

    # reads

    def query(self, params: Mapping[str, Any]) -> dict[str, Any]:
        table = self.table(params["TableName"])
        index = self.index(table, params)
        if "KeyConditionExpression" not in params:
            raise Refused("Either the KeyConditions or KeyConditionExpression parameter must be specified in the "
                          "request.")
        found = placeholders(params)
        hash_name, range_name = (index.hash, index.range) if index is not None else (table.hash, table.range)
        condition = parse_condition(params["KeyConditionExpression"], "KeyConditionExpression", found)
        hash_value, key_range = key_condition(condition, hash_name, range_name, table.types)
        wanted = self.filter(params, found)
        for path in paths_in(wanted) if wanted is not None else ():
            if path[0] in (hash_name, range_name):
                raise Refused(f"Filter Expression can only contain non-primary key attributes: Primary key "
                              f"attribute: {path[0]}")
        checked_placeholders(found, params)
        select = self.select(index, params)
        when = self.seen_as_of(table, params) if index is None else None
        partition = (index.partitions if index is not None else table.partitions).get(order(hash_value)) \
            if when is None else table.as_of(order(hash_value), when)
        positions = partition.positions if partition is not None else []
        low, high = key_range.bounds(positions) if key_range is not None else (0, len(positions))
        forward = params.get("ScanIndexForward", True)
        start = params.get("ExclusiveStartKey")
        if start is not None:
            at_partition, at = self.start(table, index, start)
            if at_partition != order(hash_value) or (key_range is not None and range_name is not None
                                                     and not key_range.holds(start[range_name])):
                raise Refused(OUTSIDE_START)
            if forward:
                low = max(low, bisect.bisect_right(positions, at))
            else:
                high = min(high, bisect.bisect_left(positions, at))
        steps = range(low, high) if forward else range(high - 1, low - 1, -1)
        items = (partition.items[positions[i]] for i in steps) if partition is not None else iter(())
        return self.page(table, index, items, params, wanted, select)

    def scan(self, params: Mapping[str, Any]) -> dict[str, Any]:
        table = self.table(params["TableName"])
        index = self.index(table, params)
        found = placeholders(params)
        wanted = self.filter(params, found)
        checked_placeholders(found, params)
        select = self.select(index, params)
        partitions: Mapping[Any, Sorted | None] = index.partitions if index is not None else table.partitions
        when = self.seen_as_of(table, params) if index is None else None
        if when is not None:
            partitions = {key: table.as_of(key, when) for key in {*table.partitions, *table.past}}
        start = params.get("ExclusiveStartKey")
        at = self.start(table, index, start) if start is not None else None

        def walk() -> Iterator[Item]:
            for key in sorted(partitions):
                if at is not None and key < at[0]:
                    continue
                partition = partitions[key]
                if partition is None:
                    continue
                low = bisect.bisect_right(partition.positions, at[1]) if at is not None and key == at[0] else 0
                for position in partition.positions[low:]:
                    yield partition.items[position]

        return self.page(table, index, walk(), params, wanted, select)

    def now(self) -> float:
        return self.clock() if self.clock is not None else 0.0

    def seen_as_of(self, table: Table, params: Mapping[str, Any]) -> float | None:
        """When the table was as an eventually consistent read of it sees it now (None: as it is)."""
        if params.get("ConsistentRead") or self.stale is None:
            return None
        late = min(self.stale(table.name), self.keep)
        if late <= 0.0:
            return None
        self.stale_reads[table.name] += 1
        return self.now() - late

    def index(self, table: Table, params: Mapping[str, Any]) -> Index | None:
        """The index a read names (None: the table's own items), having taken the changes due by now."""
        name = params.get("IndexName")
        if name is None:
            return None
        if name not in table.indexes:
            raise Refused(f"The table does not have the specified index: {name}")
        if params.get("ConsistentRead"):
            raise Refused("Consistent reads are not supported on global secondary indexes")
        index = table.indexes[name]
        table.catch_up(index, self.now())
        if index.behind:
            self.stale_reads[name] += 1
        return index

    @staticmethod
    def filter(params: Mapping[str, Any], found: Placeholders) -> Condition | None:
        if "FilterExpression" not in params:
            return None
        return parse_condition(params["FilterExpression"], "FilterExpression", found)

    @staticmethod
    def select(index: Index | None, params: Mapping[str, Any]) -> str:
        select = params.get("Select", "ALL_PROJECTED_ATTRIBUTES" if index is not None else "ALL_ATTRIBUTES")
        if select == "SPECIFIC_ATTRIBUTES":
            raise Unsupported("Select SPECIFIC_ATTRIBUTES (a ProjectionExpression)")
        if select not in ("ALL_ATTRIBUTES", "ALL_PROJECTED_ATTRIBUTES", "COUNT"):
            raise Refused(f"1 validation error detected: Value '{select}' at 'select' failed to satisfy constraint: "
                          "Member must satisfy enum value set: [SPECIFIC_ATTRIBUTES, COUNT, ALL_ATTRIBUTES, "
                          "ALL_PROJECTED_ATTRIBUTES]")
        if select == "ALL_PROJECTED_ATTRIBUTES" and index is None:
            raise Refused("ALL_PROJECTED_ATTRIBUTES can be used only when Querying using an IndexName")
        if select == "ALL_ATTRIBUTES" and index is not None and index.projection != "ALL":
            raise Refused(f"One or more parameter values were invalid: Select type ALL_ATTRIBUTES is not supported "
                          f"for global secondary index {index.name} because its projection type is not ALL")
        return str(select)

    @staticmethod
    def start(table: Table, index: Index | None, start: Mapping[str, AttributeValue]) -> tuple[Any, tuple[Any, ...]]:
        """An ``ExclusiveStartKey``'s partition and position (in the index, when reading one)."""
        names = {*table.keys, *((index.hash,) if index else ()), *((index.range,) if index and index.range else ())}
        if set(start) != names or any(only(start[name])[0] != table.types[name] for name in names):
            raise Refused(BAD_START)
        if index is None:
            return table.locate(start)
        return cast(tuple[Any, tuple[Any, ...]], table.index_key(index, start))

    @staticmethod
    def page(table: Table, index: Index | None, items: Iterator[Item], params: Mapping[str, Any],
             wanted: Condition | None, select: str) -> dict[str, Any]:
        """One page of a query or a scan: the items read in order until ``Limit`` of them (before the
        filter) or 1 MB; a ``LastEvaluatedKey`` when it stopped there."""
        limit = params.get("Limit")
        kept: list[Item] = []
        evaluated = size = 0
        last: Item | None = None
        stopped = False
        for item in items:
            shown = table.projected(index, item)
            weight = item_size(shown)
            if evaluated and size + weight > MAX_PAGE_BYTES:
                stopped = True
                break
            evaluated, size, last = evaluated + 1, size + weight, item
            if wanted is None or holds(wanted, shown):
                kept.append(shown)
            if evaluated == limit:
                stopped = True
                break
        answer: dict[str, Any] = {"Items": kept} if select != "COUNT" else {}
        answer.update(Count=len(kept), ScannedCount=evaluated)
        if stopped and last is not None:
            answer["LastEvaluatedKey"] = table.key_of(index, last)
        return answer


def key_schema(schema: Sequence[Mapping[str, str]]) -> tuple[str, str | None]:
    """A key schema's partition key and sort key."""
    hashes = [k["AttributeName"] for k in schema if k["KeyType"] == "HASH"]
    ranges = [k["AttributeName"] for k in schema if k["KeyType"] == "RANGE"]
    if len(hashes) != 1 or len(ranges) > 1 or len(schema) != len(hashes) + len(ranges):
        raise Refused("1 validation error detected: a KeySchema has one HASH key and at most one RANGE key")
    return hashes[0], ranges[0] if ranges else None


# --- the resource's surface --------------------------------------------------------------------------


def python_answer(answer: Mapping[str, Any]) -> dict[str, Any]:
    """An answer as the resource's client gives it: values in Python form."""
    out = dict(answer)
    for name in ("Item", "Attributes", "LastEvaluatedKey"):
        if name in out:
            out[name] = plain(out[name])
    if "Items" in out:
        out["Items"] = [plain(item) for item in out["Items"]]
    out["ResponseMetadata"] = {"HTTPStatusCode": 200, "RetryAttempts": 0}
    return out


@dataclass(frozen=True)
class Meta:
    """``.meta``: the client under a resource or a table."""

    client: FakeClient


class Paginator:
    """``client.get_paginator("query" | "scan")``: ``paginate(**params)`` gives every page, each
    request starting after the last page's ``LastEvaluatedKey``."""

    def __init__(self, call: Callable[..., dict[str, Any]]) -> None:
        self._call = call

    def paginate(self, **params: Any) -> Iterator[dict[str, Any]]:
        if "PaginationConfig" in params:
            raise Unsupported("a paginator's PaginationConfig")
        return self._pages(dict(params))

    def _pages(self, params: dict[str, Any]) -> Iterator[dict[str, Any]]:
        while True:
            page = self._call(**params)
            yield page
            if "LastEvaluatedKey" not in page:
                return
            params["ExclusiveStartKey"] = page["LastEvaluatedKey"]


class FakeClient:
    """The resource's client (``resource.meta.client``): the operations, taking ``TableName`` and
    values in Python form, as the resource's client takes them."""

    def __init__(self, service: Service) -> None:
        self._service = service
        self.exceptions = client_exceptions()
        self.around: Callable[[str, str, Mapping[str, Any]], None] | None = None
        """Called with the operation, ``"before"`` and the request (in DynamoDB's typed form), then
        ``"after"`` once it took effect (a simulation's faults: it may raise, and a :class:`Refused`
        becomes the operation's error)."""

    def _call(self, operation: str, params: Mapping[str, Any],
              run: Callable[[Mapping[str, Any]], dict[str, Any]]) -> dict[str, Any]:
        try:
            try:  # every value typed here is valid but for a map's name that is not a string
                request, names_checked = wire(params, ConditionExpressionBuilder()), True
            except NotAName:
                request, names_checked = wire(params, ConditionExpressionBuilder(), names=False), False
            validate_structure(operation, skeleton(request))
            if not names_checked:
                check_attribute_values(request)
            interpreted(operation, request)
            if self.around is not None:
                self.around(operation, "before", request)
            with self._service.lock:
                answer = run(request)
            if self.around is not None:
                self.around(operation, "after", request)
        except Refused as refused:
            raise client_error(refused, operation) from None
        return python_answer(answer)

    def create_table(self, **params: Any) -> dict[str, Any]:
        return self._call("CreateTable", params, self._service.create_table)

    def get_item(self, **params: Any) -> dict[str, Any]:
        return self._call("GetItem", params, self._service.get_item)

    def put_item(self, **params: Any) -> dict[str, Any]:
        return self._call("PutItem", params, self._service.put_item)

    def update_item(self, **params: Any) -> dict[str, Any]:
        return self._call("UpdateItem", params, self._service.update_item)

    def delete_item(self, **params: Any) -> dict[str, Any]:
        return self._call("DeleteItem", params, self._service.delete_item)

    def query(self, **params: Any) -> dict[str, Any]:
        return self._call("Query", params, self._service.query)

    def scan(self, **params: Any) -> dict[str, Any]:
        return self._call("Scan", params, self._service.scan)

    def transact_write_items(self, **params: Any) -> dict[str, Any]:
        return self._call("TransactWriteItems", params, self._service.transact_write_items)

    def get_paginator(self, operation: str) -> Paginator:
        if operation == "query":
            return Paginator(self.query)
        if operation == "scan":
            return Paginator(self.scan)
        raise Unsupported(f"the paginator of {operation}")

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        raise Unsupported(f"the client's {name} is not interpreted")


class FakeTable:
    """A table, as ``resource.Table(name)`` gives it: the item operations without ``TableName``."""

    def __init__(self, client: FakeClient, name: str) -> None:
        self.name = self.table_name = name
        self.meta = Meta(client)

    def get_item(self, **params: Any) -> dict[str, Any]:
        return self.meta.client.get_item(TableName=self.name, **params)

    def put_item(self, **params: Any) -> dict[str, Any]:
        return self.meta.client.put_item(TableName=self.name, **params)

    def update_item(self, **params: Any) -> dict[str, Any]:
        return self.meta.client.update_item(TableName=self.name, **params)

    def delete_item(self, **params: Any) -> dict[str, Any]:
        return self.meta.client.delete_item(TableName=self.name, **params)

    def query(self, **params: Any) -> dict[str, Any]:
        return self.meta.client.query(TableName=self.name, **params)

    def scan(self, **params: Any) -> dict[str, Any]:
        return self.meta.client.scan(TableName=self.name, **params)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        raise Unsupported(f"the table's {name} is not interpreted")


class FakeDynamo:
    """DynamoDB in memory, as ``boto3.resource("dynamodb")`` gives it. ``clock``: seconds since the
    epoch (a virtual clock's), to date stream records; without it they carry no date."""

    def __init__(self, region: str = "us-east-1", clock: Callable[[], float] | None = None) -> None:
        self._service = Service(region, clock)
        self.meta = Meta(FakeClient(self._service))

    def create_table(self, **params: Any) -> FakeTable:
        self.meta.client.create_table(**params)
        return self.Table(params["TableName"])

    def Table(self, name: str) -> FakeTable:
        return FakeTable(self.meta.client, name)

    def peek(self, table: str, key: Mapping[str, Any], only: Sequence[str] | None = None) -> dict[str, Any] | None:
        """The item with ``key`` (Python values; ``only``: those attributes of it), read straight
        from memory: no request, no fault, no charge (a simulation's own look at the data, never
        the application's)."""
        with self._service.lock:
            found = self._service.table(table).get({k: typed(v) for k, v in key.items()})
            if found is not None and only is not None:
                found = {name: found[name] for name in only if name in found}
            return plain(found) if found is not None else None

    def partition(self, table: str, pk: Any) -> list[dict[str, Any]]:
        """Every item of one partition, in sort key order, read as :meth:`peek` reads."""
        with self._service.lock:
            stored = self._service.table(table).partitions.get(order(typed(pk)))
            return [plain(stored.items[position]) for position in stored.positions] if stored else []

    def items(self, table: str) -> list[dict[str, Any]]:
        """Every item of the table, read as :meth:`peek` reads (partition by partition)."""
        with self._service.lock:
            return [plain(stored.items[position]) for stored in self._service.table(table).partitions.values()
                    for position in stored.positions]

    def lag_indexes(self, lag: Callable[[str, str], float] | None) -> None:
        """From now on, a change reaches each global secondary index ``lag(table, index)`` seconds
        after its table took it (None: at once), no sooner than the item's change before it, as
        DynamoDB propagates a change to its indexes: a query or scan of an index sees what the index
        holds by then (the index's reads are eventually consistent). Needs a clock."""
        if lag is not None and self._service.clock is None:
            raise ValueError("an index that lags needs the clock the table's changes are dated by")
        self._service.lag = lag

    def stale_reads_within(self, stale: Callable[[str], float] | None, longest: float = 0.0) -> None:
        """From now on, an eventually consistent read of a table (a ``GetItem``, or a ``Query`` or
        ``Scan`` of its own items, without ``ConsistentRead``) sees it as it was ``stale(table)``
        seconds ago, at most ``longest`` (None: as it is), as DynamoDB's may before every copy of the
        item took the latest write; a strongly consistent read sees every write. Needs a clock."""
        if stale is not None and self._service.clock is None:
            raise ValueError("a stale read needs the clock the table's changes are dated by")
        self._service.stale, self._service.keep = stale, longest if stale is not None else 0.0

    def stale_reads(self) -> Counter[str]:
        """Per index (by name), and per table for its eventually consistent reads seen stale: how many
        reads were made while it lagged behind the table's writes."""
        return Counter(self._service.stale_reads)

    def take_changes(self) -> list[tuple[str, dict[str, Any]]]:
        """The keys of the items changed since the last call, in commit order, with their table
        (every table, whether it has a stream or not: a simulation's own bookkeeping)."""
        with self._service.lock:
            changed, self._service.changed = self._service.changed or [], []
            return changed

    def records(self, table: str) -> list[dict[str, Any]]:
        """The table's stream records so far, oldest first (copies)."""
        with self._service.lock:
            return [copy_record(record) for record in self._stream(table)]

    def take_records(self, table: str, *, copies: bool = True) -> list[dict[str, Any]]:
        """The table's stream records not taken yet, oldest first; the stream keeps none of them.
        ``copies=False``: the records themselves, whose images are the stored items, for a reader
        that changes nothing in them (a simulation's checks, after every step)."""
        with self._service.lock:
            stream = self._stream(table)
            taken = list(stream)
            stream.clear()
            return [copy_record(record) for record in taken] if copies else taken

    def _stream(self, name: str) -> list[dict[str, Any]]:
        table = self._service.tables.get(name)
        if table is None or table.view is None:
            raise ValueError(f"table {name!r} has no stream")
        return table.records

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        raise Unsupported(f"the resource's {name} is not interpreted")


def copy_record(record: Mapping[str, Any]) -> dict[str, Any]:
    body = dict(record["dynamodb"])
    for part in ("Keys", "NewImage", "OldImage"):
        if part in body:
            body[part] = clone_item(body[part])
    return {**record, "dynamodb": body}
