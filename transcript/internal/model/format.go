package model

// A Format names a recorded transcript format.
type Format string

// The formats ctxbench reads.
const (
	// FormatClaudeCode is a Claude Code session JSONL file
	// (~/.claude/projects/*/*.jsonl) or an Agent SDK stream-json log.
	FormatClaudeCode Format = "claude-code"
	// FormatCodex is a Codex CLI rollout JSONL file or a `codex exec --json`
	// event stream.
	FormatCodex Format = "codex"
	// FormatOpenAIChat is JSON Lines of chat messages (one per line) or of
	// conversations ({"messages": [...]} per line), or a JSON file holding
	// such a conversation (mini-swe-agent .traj.json) or a message array.
	FormatOpenAIChat Format = "openai-chat"
	// FormatAnthropic is JSON Lines of Messages-API messages, or of requests
	// ({"system": ..., "messages": [...]} per line), or a JSON array of
	// messages (Cline's api_conversation_history.json), or a Cline 4
	// session ({version, sessionId, messages}).
	FormatAnthropic Format = "anthropic"
	// FormatGeminiCLI is a Gemini CLI session JSON file.
	FormatGeminiCLI Format = "gemini-cli"
	// FormatOpenHands is an OpenHands event-list JSON file.
	FormatOpenHands Format = "openhands"
	// FormatOTel is OpenTelemetry traces following the GenAI semantic
	// conventions or OpenInference's (Arize Phoenix): OTLP JSON (a document, or JSON Lines of TracesData
	// objects as the OpenTelemetry file exporter writes them), or JSON
	// Lines of spans as the JavaScript SDK's file exporters write them
	// (GitHub Copilot's COPILOT_OTEL_FILE_EXPORTER_PATH).
	FormatOTel Format = "otel"
	// FormatATIF is an Agent Trajectory Interchange Format trajectory
	// (Harbor, Terminal-Bench: schema_version "ATIF-v1.x").
	FormatATIF Format = "atif"
	// FormatLangfuse is Langfuse observations: the blob storage export's
	// JSON or JSONL rows, or a page of the public API.
	FormatLangfuse Format = "langfuse"
	// FormatCopilot is a GitHub Copilot CLI session's event log
	// (~/.copilot/session-state/<session id>/events.jsonl).
	FormatCopilot Format = "copilot"
	// FormatOpencode is opencode's sessions: its SQLite database
	// (opencode.db), the JSON `opencode export` writes, or the messages
	// its server's API returns.
	FormatOpencode Format = "opencode"
)
