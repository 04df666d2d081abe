package codex

import (
	"testing"

	"github.com/ctxbench/ctxbench/transcript"
)

// TestCodexContextualUser: is_contextual_user_message_content —
//
//	is_session_prefix(text) || is_user_shell_command_text(text)
//	    || UserInstructions::is_user_instructions_text(text) || SkillInstructions::is_skill_instructions_text(text)
//
// any text of the message, trimmed at the start, ASCII case ignored
// (let lowered = trimmed.to_ascii_lowercase();), with the texts of
// event_mapping.rs's skips_user_instructions_and_env and compact.rs's
// collect_user_messages_filters_session_prefix_entries.
func TestCodexContextualUser(t *testing.T) {
	for s, want := range map[string]bool{
		"<user_instructions>test_text</user_instructions>":                                          true,
		"<environment_context>test_text</environment_context>":                                      true,
		"<ENVIRONMENT_CONTEXT>cwd=/tmp</ENVIRONMENT_CONTEXT>":                                       true,
		"# AGENTS.md instructions for test_directory\n\n<INSTRUCTIONS>\ntest_text\n</INSTRUCTIONS>": true,
		"<skill>\n<name>demo</name>\n<path>skills/demo/SKILL.md</path>\nbody\n</skill>":             true,
		"<user_shell_command>echo 42</user_shell_command>":                                          true,
		"  \n<environment_context>ctx</environment_context>":                                        true,
		"real user message":                             false,
		"please read <environment_context> in the docs": false,
	} {
		m := &transcript.Message{Role: transcript.RoleUser, Blocks: []transcript.Block{{Type: transcript.BlockText, Text: s}}}
		if got := isContextualUser(m); got != want {
			t.Errorf("contextual(%q) = %v, want %v", s, got, want)
		}
	}
	// Any text of the message makes it contextual.
	two := &transcript.Message{Role: transcript.RoleUser, Blocks: []transcript.Block{{Type: transcript.BlockText, Text: "hello"}, {Type: transcript.BlockText, Text: "<environment_context>ctx</environment_context>"}}}
	if !isContextualUser(two) {
		t.Error("a message with a contextual text among others is contextual")
	}
}
