package estimate

// Names the external tests reach that the package does not export.
type (
	BilledEstimate = billedEstimate
	MessageCounts  = messageCounts
)

var (
	DropsEarlierThinking = dropsEarlierThinking
	ScriptBuckets        = scriptBuckets
)
