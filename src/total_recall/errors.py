"""The exceptions the core raises; surfaces turn them into messages and exit codes."""


class TotalRecallError(Exception):
    """Base of every error Total Recall raises on purpose."""


class ConfigError(TotalRecallError):
    """A setting (an environment variable, a root override) is wrong."""


class SandboxError(ConfigError):
    """TOTAL_RECALL_SANDBOX is armed and a store root did not come from its override."""


class SourceError(TotalRecallError):
    """A harness payload could not be resolved or read; the message names the path."""


class AddressError(TotalRecallError):
    """An address is malformed or names nothing the record holds."""


class AppendOnlyError(TotalRecallError):
    """Something tried to change or delete what the record already holds."""


class RecordError(TotalRecallError):
    """The record database is unusable (corrupt, locked, or from a newer version)."""


class SearchError(TotalRecallError):
    """A query that cannot be searched (empty, or nothing searchable in it)."""


class VectorsUnavailable(TotalRecallError):
    """The optional vectors extra is not installed (pip install 'total-recall[vectors]')."""
