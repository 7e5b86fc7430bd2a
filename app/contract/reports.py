"""Reports on the wire: the report catalog (extension), report runs, the (beta) run body and the
download link (extension).

Shape only. Report parameters are checked against the catalog by the API, so that a bad one gets
`report-parameter-validation` rather than `validation`; runs are executed by the job queue.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field

from app.contract.common import EXTENSION, ApiModel, Id, ListQuery, Page, Timestamp, is_absent

ReportRunStatus = Literal["running", "completed", "failed"]
"""Where a report run stands; a new run is `running`."""

ReportParameterType = Literal["string", "integer", "number", "boolean", "timestamp", "uuid"]
"""Type of a report parameter's value."""

Uri = Annotated[str, Field(json_schema_extra={"format": "uri"})]
"""An absolute URI, passed through as written."""


class ReportParameter(ApiModel):
    """One parameter a report takes (extension)."""

    model_config = ConfigDict(json_schema_extra=EXTENSION)

    name: str = Field(description="Key in the run's `parameters`.")
    type: ReportParameterType
    required: bool
    description: str
    choices: list[str] | None = Field(
        default=None, exclude_if=is_absent, json_schema_extra=EXTENSION,
        description="The values a `string` parameter accepts, when it accepts only some "
        "(extension).")


class ReportRead(ApiModel):
    """A report of the catalog and the parameters it takes (extension)."""

    model_config = ConfigDict(json_schema_extra=EXTENSION)

    id: str = Field(description="Report identifier, as `reportId` of a run.")
    name: str
    description: str
    parameters: list[ReportParameter]


class ReportPage(Page[ReportRead]):
    """The report catalog (extension)."""

    model_config = ConfigDict(json_schema_extra=EXTENSION)


class ReportListQuery(ListQuery):
    """Query of GET /v1/reporting/reports (extension)."""

    model_config = ConfigDict(json_schema_extra=EXTENSION)


class ReportUser(ApiModel):
    """Who started a report run."""

    id: Id
    name: str


class ReportFile(ApiModel):
    """The file a completed run produced."""

    name: str
    media_type: str = Field(examples=["text/csv"])
    size_bytes: int = Field(ge=0)


class ReportRunRead(ApiModel):
    """One run of a report; `file` is left out until the run has completed."""

    id: Id
    report_id: str = Field(description="Report identifier.")
    created_at: Timestamp
    created_by: ReportUser
    status: ReportRunStatus
    file: ReportFile | None = Field(
        default=None, exclude_if=is_absent, description="Only present when completed."
    )
    error: str | None = Field(
        default=None, exclude_if=is_absent, json_schema_extra=EXTENSION,
        description="Why the run failed (the job queue was down, its worker died, the report "
        "could not be built); only present when failed (extension).")


class ReportRunPage(Page[ReportRunRead]):
    """A page of report runs."""


class ReportRunListQuery(ListQuery):
    """Query of GET /v1/reporting/reports/runs."""

    report_id: str | None = Field(
        default=None, description="Only runs of this report.", json_schema_extra=EXTENSION
    )
    created_by: Id | None = Field(
        default=None, description="Only runs this user started.", json_schema_extra=EXTENSION
    )


class ReportRunCreate(ApiModel):
    """Body of POST /v1/reporting/reports/runs (beta)."""

    report_id: str = Field(min_length=1, description="Report identifier from the catalog.")
    parameters: dict[str, Any] = Field(
        default_factory=dict, description="The report's parameters; keys depend on the report."
    )


class ReportDownload(ApiModel):
    """A signed, expiring link to a completed run's file."""

    url: Uri
    expires_at: Timestamp
