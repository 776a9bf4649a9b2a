"""Interface: de-identify Spark DataFrames and files across a cluster with the same pipeline.

May import the library layers and tools; never another interface.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from radeid.core.moved import lazy_exports

if TYPE_CHECKING:
    from radeid.spark.dataframe import AUDIT_FIELDS as AUDIT_FIELDS
    from radeid.spark.dataframe import SparkDocumentError as SparkDocumentError
    from radeid.spark.dataframe import SparkInputError as SparkInputError
    from radeid.spark.dataframe import audit_schema as audit_schema
    from radeid.spark.dataframe import deidentify_dataframe as deidentify_dataframe
    from radeid.spark.dataframe import spark_deidentify_files as spark_deidentify_files
    from radeid.spark.records import spark_deidentify_records as spark_deidentify_records

__all__ = [
    "AUDIT_FIELDS",
    "SparkDocumentError",
    "SparkInputError",
    "audit_schema",
    "deidentify_dataframe",
    "spark_deidentify_files",
    "spark_deidentify_records",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "AUDIT_FIELDS": "radeid.spark.dataframe",
        "SparkDocumentError": "radeid.spark.dataframe",
        "SparkInputError": "radeid.spark.dataframe",
        "audit_schema": "radeid.spark.dataframe",
        "deidentify_dataframe": "radeid.spark.dataframe",
        "spark_deidentify_files": "radeid.spark.dataframe",
        "spark_deidentify_records": "radeid.spark.records",
    },
)
