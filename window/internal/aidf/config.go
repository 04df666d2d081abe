package aidf

import (
	"fmt"
	"strconv"

	"go.yaml.in/yaml/v3"

	"github.com/ctxbench/ctxbench/internal/limit"
	"github.com/ctxbench/ctxbench/internal/strictyaml"
)

// aidfConfig is the part of AIDF's config.yml the window reads (AIDF's v0.8.0
// plan (Message History Management), tasks 114-add-conversation-config-types
// and 120-config-documentation): execution.max_conversation_messages, the
// shorthand, and the execution.conversation block.
type aidfConfig struct {
	Execution struct {
		MaxConversationMessages *int `yaml:"max_conversation_messages"`
		Conversation            struct {
			MaxMessages     *int  `yaml:"max_messages"`
			SummarizeOnTrim *bool `yaml:"summarize_on_trim"`
			PreserveFirstN  *int  `yaml:"preserve_first_n"`
			PreserveLastN   *int  `yaml:"preserve_last_n"`
		} `yaml:"conversation"`
	} `yaml:"execution"`
}

// AIDFConfigParams reads an AIDF config.yml and returns the aidf policy
// parameters it sets. The conversation block's max_messages wins over the
// max_conversation_messages shorthand; fields the file omits keep their
// defaults.
func AIDFConfigParams(path string) (map[string]string, error) {
	b, err := limit.ReadFile(path, limit.Config)
	if err != nil {
		return nil, err
	}
	if err := strictyaml.Check(b); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var c aidfConfig
	if err := yaml.Unmarshal(b, &c); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	out := map[string]string{}
	e := c.Execution
	if e.MaxConversationMessages != nil {
		out["max_messages"] = strconv.Itoa(*e.MaxConversationMessages)
	}
	cv := e.Conversation
	if cv.MaxMessages != nil {
		out["max_messages"] = strconv.Itoa(*cv.MaxMessages)
	}
	if cv.SummarizeOnTrim != nil {
		out["summarize_on_trim"] = strconv.FormatBool(*cv.SummarizeOnTrim)
	}
	if cv.PreserveFirstN != nil {
		out["preserve_first_n"] = strconv.Itoa(*cv.PreserveFirstN)
	}
	if cv.PreserveLastN != nil {
		out["preserve_last_n"] = strconv.Itoa(*cv.PreserveLastN)
	}
	return out, nil
}
