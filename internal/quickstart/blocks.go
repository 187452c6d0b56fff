package quickstart

import (
	"fmt"
	"regexp"
	"strings"
)

// Block is a fenced code block of a Markdown page.
type Block struct {
	Lang string // the info string's first word: go, ts, sh, mermaid, ...
	// File is the file the block is, from its first line "// quickstart: main.go" (go, ts);
	// "" for a block without one.
	File string
	Text string // the block's lines, each with its newline, the marker line included
	Line int    // the line of the opening fence, from 1
}

// marker is a snippet's first line: `// quickstart: main.go`.
var marker = regexp.MustCompile(`^// quickstart: (\S+)$`)

// Blocks returns the fenced code blocks of a Markdown page, in order. Fences are ``` at the
// start of a line; an unclosed block is an error.
func Blocks(doc string) ([]Block, error) {
	var (
		blocks []Block
		cur    *Block
	)
	for n, line := range strings.SplitAfter(doc, "\n") {
		trimmed := strings.TrimRight(line, "\n")
		if !strings.HasPrefix(trimmed, "```") {
			if cur != nil {
				if cur.Text == "" && cur.File == "" {
					if m := marker.FindStringSubmatch(trimmed); m != nil {
						cur.File = m[1]
					}
				}
				cur.Text += line
			}
			continue
		}
		if cur != nil {
			blocks = append(blocks, *cur)
			cur = nil
			continue
		}
		lang, _, _ := strings.Cut(strings.TrimSpace(strings.TrimPrefix(trimmed, "```")), " ")
		cur = &Block{Lang: lang, Line: n + 1}
	}
	if cur != nil {
		return nil, fmt.Errorf("line %d: the %s block is not closed", cur.Line, cur.Lang)
	}
	return blocks, nil
}

// Files returns the blocks of lang that name a file, by file name; a file named twice is an
// error.
func Files(blocks []Block, lang string) (map[string]string, error) {
	files := map[string]string{}
	for _, b := range blocks {
		if b.Lang != lang || b.File == "" {
			continue
		}
		if _, dup := files[b.File]; dup {
			return nil, fmt.Errorf("line %d: %s is given twice", b.Line, b.File)
		}
		files[b.File] = b.Text
	}
	return files, nil
}
