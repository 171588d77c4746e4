"""Names shared by the runtime, the CDK app and the tests, so none of them can drift."""

from __future__ import annotations

from typing import NamedTuple

SERVICE_NAME = "visual-degrees"

# Run memory (one DynamoDB table / one SQLite table).
PARTITION_KEY = "pk"
SORT_KEY = "sk"
TTL_ATTRIBUTE = "expiresAt"
DATA_ATTRIBUTE = "data"  # the item's JSON document, stored as a string
COUNTERS_ATTRIBUTE_PREFIX = "n_"  # atomic counters are top-level numbers: n_<name>

# Environment variables. Every setting is `VD_<FIELD>` of settings.Settings, one model for every
# process (Settings.env_name names any of them); the CDK app sets each function the ones below its
# grants need, and the CLI finds its dotenv file in ENV_CONFIG_FILE.
ENV_PREFIX = "VD_"
ENV_CONFIG_FILE = "VD_CONFIG_FILE"
ENV_TABLE_NAME = "VD_TABLE_NAME"
ENV_GRAPH_TABLE_NAME = "VD_GRAPH_TABLE_NAME"  # the evidence graph (the steps that prove links)
ENV_GRAPH_RETENTION_DAYS = "VD_GRAPH_RETENTION_DAYS"
ENV_STATE_MACHINE_ARN = "VD_STATE_MACHINE_ARN"
ENV_WEBSOCKET_ENDPOINT = "VD_WEBSOCKET_ENDPOINT"
ENV_PROVIDER_SECRET_ARN = "VD_PROVIDER_SECRET_ARN"  # the provider keys (the steps that call providers)
ENV_CLIENT_TOKENS_SECRET_ARN = "VD_CLIENT_TOKENS_SECRET_ARN"  # {clientId: token} (the authorizer)
ENV_SEARCH_ENGINE = "VD_SEARCH_ENGINE"
ENV_PLANNER = "VD_PLANNER"
ENV_BEDROCK_MODEL_ID = "VD_BEDROCK_MODEL_ID"
ENV_RUN_DEFAULTS = "VD_RUN_DEFAULTS"  # RunOptions JSON: the defaults a startRun's options override
ENV_RUN_CEILINGS = "VD_RUN_CEILINGS"  # RunCeilings JSON: the most a startRun may ask for
ENV_MAX_ACTIVE_RUNS = "VD_MAX_ACTIVE_RUNS_PER_CLIENT"
# Pacing of the providers' calls (settings.Settings: search_rps, recognition_rps, llm_rps, client_rate_share).
ENV_SEARCH_RPS = "VD_SEARCH_RPS"
ENV_RECOGNITION_RPS = "VD_RECOGNITION_RPS"
ENV_LLM_RPS = "VD_LLM_RPS"
ENV_CLIENT_RATE_SHARE = "VD_CLIENT_RATE_SHARE"

# Connections and subscriptions (deployed API). A subscription item carries the run id in a top-level
# attribute so the sparse `connectionsByRun` index finds every connection watching a run.
CONNECTIONS_BY_RUN_INDEX = "connectionsByRun"
SUBSCRIBED_RUN_ATTRIBUTE = "subscribedRunId"


class StateTask(NamedTuple):
    """A Task state of the definition: its ASL substitution key and the step that runs it."""

    state: str
    substitution: str
    step: str  # module name under visual_degrees.steps and visual_degrees.handlers


STATE_TASKS: tuple[StateTask, ...] = (
    StateTask("S0_InitializeSession", "InitializeSessionFunctionArn", "initialize_session"),
    StateTask("S1_DirectEdgeAttempt", "DirectEdgeAttemptFunctionArn", "direct_edge_attempt"),
    StateTask("S2_CandidateDiscovery", "CandidateDiscoveryFunctionArn", "candidate_discovery"),
    StateTask("S3_SelectNextExpansion", "SelectNextExpansionFunctionArn", "select_next_expansion"),
    StateTask("S4_VerifyNextEdge", "VerifyNextEdgeFunctionArn", "verify_next_edge"),
    StateTask("S5_BridgeTowardTarget", "BridgeTowardTargetFunctionArn", "bridge_toward_target"),
    StateTask("S6_FinalizeSuccess", "FinalizeSuccessFunctionArn", "finalize_success"),
    StateTask("S7_FinalizeFailure", "FinalizeFailureFunctionArn", "finalize_failure"),
    StateTask("RunCancelled", "CancelRunFunctionArn", "cancel_run"),
    StateTask("HandleError", "HandleErrorFunctionArn", "handle_error"),
)

# WebSocket routes (API Gateway routes on $request.body.action) and their handler modules.
WEBSOCKET_ROUTES: dict[str, str] = {
    "$connect": "ws_connect",
    "$disconnect": "ws_disconnect",
    "startRun": "ws_start_run",
    "subscribe": "ws_subscribe",
    "cancelRun": "ws_cancel_run",
    "getRun": "ws_get_run",
    "getGraph": "ws_get_graph",
    "continueRun": "ws_continue_run",
    "$default": "ws_default",
}

# The EventBridge handler that gives a run its ending when its execution ended first (FAILED,
# TIMED_OUT, ABORTED without the run's terminal event).
EXECUTION_ENDED_HANDLER = "execution_ended"

MAX_MESSAGE_BYTES = 128 * 1024  # API Gateway WebSocket frame limit (a client's and a push alike)
# The most one message we send may take: the frame limit with a quarter to spare. Terminal events are
# stored within it; anything larger is shrunk on the way out (protocol.fit), never refused by the wire.
MAX_EVENT_BYTES = 96 * 1024
