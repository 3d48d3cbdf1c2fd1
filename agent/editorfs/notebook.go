package editorfs

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// NotebookEditInput is the built-in NotebookEdit's input.
type NotebookEditInput struct {
	NotebookPath string `json:"notebook_path"`
	CellID       string `json:"cell_id,omitempty"`
	NewSource    string `json:"new_source"`
	CellType     string `json:"cell_type,omitempty"`
	EditMode     string `json:"edit_mode,omitempty"`
}

// readNotebook shows a notebook's cells as Claude Code's Read does.
func (t *Tools) readNotebook(ctx context.Context, path, given string) (Result, error) {
	text, err := t.current(ctx, path)
	switch {
	case errors.Is(err, errMissing):
		return t.missing(), nil
	case ctx.Err() != nil:
		return Result{}, ctx.Err()
	case err != nil:
		return editorFailed("read", path, err), nil
	}
	nb, err := parseNotebook(text)
	if err != nil {
		return failed("Notebook is not valid JSON: %v", err), nil
	}
	t.saw(path, text)
	lang := nb.language()
	var b strings.Builder
	var cells []map[string]any
	for i, c := range nb.cells() {
		id := c.id(i)
		typ, src := c.str("cell_type"), c.source()
		if i > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "<cell id=%q>", id)
		if typ != "code" {
			fmt.Fprintf(&b, "<cell_type>%s</cell_type>", typ)
		}
		fmt.Fprintf(&b, "%s</cell id=%q>", src, id)
		cell := map[string]any{"cellType": typ, "source": src, "cell_id": id}
		if typ == "code" {
			cell["language"] = lang
		}
		cells = append(cells, cell)
	}
	return Result{Text: b.String(), Structured: map[string]any{"type": "notebook", "file": map[string]any{"filePath": given, "cells": cells}}}, nil
}

// NotebookEdit replaces, inserts or deletes a cell of a notebook, in the
// editor's text of it.
func (t *Tools) NotebookEdit(ctx context.Context, in NotebookEditInput) (Result, error) {
	if in.NotebookPath == "" {
		return toolError("InputValidationError: NotebookEdit failed due to the following issue:\nThe required parameter `notebook_path` is missing"), nil
	}
	mode := in.EditMode
	if mode == "" {
		mode = "replace"
	}
	if mode != "replace" && mode != "insert" && mode != "delete" {
		return toolError("Edit mode must be replace, insert, or delete."), nil
	}
	if mode == "insert" && in.CellType == "" {
		return toolError("Cell type is required when using edit_mode=insert."), nil
	}
	path := t.Path(in.NotebookPath)
	text, err := t.current(ctx, path)
	switch {
	case errors.Is(err, errMissing):
		return toolError("Notebook file does not exist."), nil
	case ctx.Err() != nil:
		return Result{}, ctx.Err()
	case err != nil:
		return editorFailed("read", path, err), nil
	}
	if t.stale(path, text) {
		return failed(staleText), nil
	}
	nb, err := parseNotebook(text)
	if err != nil {
		return toolError("Notebook is not valid JSON."), nil
	}
	cells := nb.cells()
	at := -1 // the cell named by cell_id
	if in.CellID != "" {
		for i, c := range cells {
			if c.id(i) == in.CellID {
				at = i
				break
			}
		}
		if at < 0 {
			if n, ok := strings.CutPrefix(in.CellID, "cell-"); ok {
				if i, err := strconv.Atoi(n); err == nil && i >= 0 && i < len(cells) {
					at = i
				}
			}
		}
		if at < 0 {
			return toolError("Cell with ID %q not found in notebook.", in.CellID), nil
		}
	} else if mode != "insert" {
		return toolError("Cell ID must be specified when not inserting a new cell."), nil
	}
	lang := nb.language()
	structured := map[string]any{
		"new_source": in.NewSource, "cell_type": in.CellType, "language": lang, "edit_mode": mode,
		"error": "", "notebook_path": in.NotebookPath, "original_file": text,
	}
	var msg string
	switch mode {
	case "replace":
		c := cells[at]
		structured["old_source"] = c.source()
		c.set("source", in.NewSource)
		if in.CellType != "" {
			c.set("cell_type", in.CellType)
		}
		if c.str("cell_type") == "code" {
			c.set("execution_count", nil)
			c.set("outputs", []any{})
		}
		structured["cell_type"], structured["cell_id"] = c.str("cell_type"), c.id(at)
		msg = fmt.Sprintf("Updated cell %s with %s", c.id(at), in.NewSource)
	case "insert":
		id := newCellID()
		c := &object{}
		c.set("cell_type", in.CellType)
		c.set("id", id)
		c.set("source", in.NewSource)
		c.set("metadata", &object{})
		if in.CellType == "code" {
			c.set("execution_count", nil)
			c.set("outputs", []any{})
		}
		cells = append(cells[:at+1], append([]*object{c}, cells[at+1:]...)...)
		structured["cell_id"] = id
		msg = fmt.Sprintf("Inserted cell %s with %s", id, in.NewSource)
	case "delete":
		if in.CellType == "" {
			structured["cell_type"] = "code" // what Claude Code reports
		}
		structured["old_source"], structured["cell_id"] = cells[at].source(), cells[at].id(at)
		msg = "Deleted cell " + cells[at].id(at)
		cells = append(cells[:at], cells[at+1:]...)
	}
	nb.setCells(cells)
	out, err := json.MarshalIndent(nb, "", " ")
	if err != nil {
		return failed("Cannot write the notebook: %v", err), nil
	}
	updated := string(out)
	if err := t.fs.WriteTextFile(ctx, path, updated); err != nil {
		if ctx.Err() != nil {
			return Result{}, ctx.Err()
		}
		return editorFailed("write", path, err), nil
	}
	t.saw(path, updated)
	structured["updated_file"] = updated
	return Result{Text: msg, Structured: structured}, nil
}

func newCellID() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// object is a JSON object that keeps its members' order, so a notebook
// written back differs from the one read only where it was edited.
type object struct {
	keys []string
	vals map[string]any // json.RawMessage, or a value set by the tool
}

func parseNotebook(text string) (*object, error) {
	var o object
	if err := json.Unmarshal([]byte(text), &o); err != nil {
		return nil, err
	}
	return &o, nil
}

func (o *object) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return errors.New("not an object")
	}
	o.vals = map[string]any{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		k, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return err
		}
		if _, dup := o.vals[k]; !dup {
			o.keys = append(o.keys, k)
		}
		o.vals[k] = v
	}
	_, err = dec.Token()
	return err
}

func (o *object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteByte(':')
		vb, err := json.Marshal(o.vals[k])
		if err != nil {
			return nil, err
		}
		b.Write(vb)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func (o *object) set(k string, v any) {
	if o.vals == nil {
		o.vals = map[string]any{}
	}
	if _, ok := o.vals[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
}

// str is a member as a string ("" if it is none).
func (o *object) str(k string) string {
	switch v := o.vals[k].(type) {
	case string:
		return v
	case json.RawMessage:
		var s string
		_ = json.Unmarshal(v, &s)
		return s
	}
	return ""
}

// source is a cell's source: a string, or a list of lines to join.
func (o *object) source() string {
	switch v := o.vals["source"].(type) {
	case string:
		return v
	case json.RawMessage:
		var s string
		if json.Unmarshal(v, &s) == nil {
			return s
		}
		var lines []string
		_ = json.Unmarshal(v, &lines)
		return strings.Join(lines, "")
	}
	return ""
}

// id is a cell's id, or Claude Code's name for a cell without one.
func (o *object) id(i int) string {
	if id := o.str("id"); id != "" {
		return id
	}
	return "cell-" + strconv.Itoa(i)
}

func (o *object) cells() []*object {
	raw, _ := o.vals["cells"].(json.RawMessage)
	var cells []*object
	_ = json.Unmarshal(raw, &cells)
	return cells
}

func (o *object) setCells(cells []*object) {
	if cells == nil {
		cells = []*object{}
	}
	o.set("cells", cells)
}

// language is the notebook's language (python unless it says).
func (o *object) language() string {
	var meta struct {
		LanguageInfo struct {
			Name string `json:"name"`
		} `json:"language_info"`
		Kernelspec struct {
			Language string `json:"language"`
		} `json:"kernelspec"`
	}
	if raw, ok := o.vals["metadata"].(json.RawMessage); ok {
		_ = json.Unmarshal(raw, &meta)
	}
	switch {
	case meta.LanguageInfo.Name != "":
		return meta.LanguageInfo.Name
	case meta.Kernelspec.Language != "":
		return meta.Kernelspec.Language
	}
	return "python"
}
