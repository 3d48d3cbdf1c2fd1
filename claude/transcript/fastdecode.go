package transcript

import (
	"bytes"
	"strconv"
	"unsafe"

	"github.com/claude-agent-acp/claude-agent-acp/internal/jsonfast"
)

// recordDecoder is the fast path of decodeRecord: one validating pass over
// the line that decodes the members of a Record straight into it, with no
// reflection and no intermediate maps. It covers the lines the CLI writes;
// on anything else (a member of an unexpected JSON type, a duplicate
// member, a member name encoding/json would match without regard to case,
// escapes in member names) it gives up and the caller decodes the line
// with encoding/json, so both always agree (TestFastDecodeMatches,
// FuzzFastDecode).
//
// Strings that repeat from record to record (session id, cwd, version,
// model, block types, the parent uuid that is the previous record's uuid)
// are shared instead of allocated again.
type recordDecoder struct {
	d    jsonfast.Dec
	last [numSlots]string
	blk  []Block // scratch for a message's blocks
	// own is the line when decode copied it (a long line): its big
	// values are then shared instead of copied again (share).
	own []byte
}

// ownLine is the line length from which decode copies the line once and
// shares its big values (tool results, file contents, long text) instead
// of copying each.
const ownLine = 4 << 10

// share reports whether a value of the line is big enough to be shared:
// a quarter of the line or more, so that what a Record keeps of a line
// never pins more than four times its size.
func (rd *recordDecoder) share(v []byte) bool {
	return rd.own != nil && len(v) >= len(rd.own)/4
}

// Interned string slots.
const (
	slotType = iota
	slotSession
	slotCwd
	slotBranch
	slotVersion
	slotPerm
	slotSubtype
	slotLevel
	slotRole
	slotModel
	slotStop
	slotMsgID
	slotRequest
	slotUUID
	slotSource
	slotName
	slotOrigin
	numSlots
)

// str decodes a string member, reusing the slot's previous value when the
// bytes are the same.
func (rd *recordDecoder) str(slot int) string {
	raw, esc, ok := rd.d.StrRaw()
	if !ok {
		return ""
	}
	if slot >= 0 && !esc && string(raw) == rd.last[slot] {
		return rd.last[slot]
	}
	if slot < 0 {
		return rd.text(raw, esc, raw)
	}
	s := jsonfast.String(raw, esc)
	if slot >= 0 {
		rd.last[slot] = s
	}
	return s
}

// uuid decodes a uuid-like member: it is most often the uuid of the record
// before (a parentUuid) or the same as the last one seen.
func (rd *recordDecoder) uuid(present *bool) string {
	raw, esc, ok := rd.d.StrRaw()
	if !ok {
		return ""
	}
	*present = true
	if !esc {
		if string(raw) == rd.last[slotUUID] {
			return rd.last[slotUUID]
		}
		if string(raw) == rd.last[slotSource] {
			return rd.last[slotSource]
		}
	}
	return jsonfast.String(raw, esc)
}

// raw copies a raw member value (or shares it, see share).
func (rd *recordDecoder) raw() []byte {
	v := rd.d.Raw()
	if v == nil {
		return nil
	}
	if rd.share(v) {
		return v[:len(v):len(v)]
	}
	return append([]byte(nil), v...)
}

// rawString is raw for a string member that is also wanted decoded, in
// one scan: its JSON and its text (each shared or copied, see share and
// str).
func (rd *recordDecoder) rawString() ([]byte, string) {
	start := rd.d.Pos()
	raw, esc, ok := rd.d.StrRaw()
	if !ok {
		return nil, ""
	}
	v := rd.d.Bytes(start)
	text := rd.text(raw, esc, v)
	if rd.share(v) {
		return v[:len(v):len(v)], text
	}
	return append([]byte(nil), v...), text
}

// text decodes a string's raw bytes, sharing them when the value they are
// part of (whole, quotes and all) is big enough (share) and needs no
// unescaping.
func (rd *recordDecoder) text(raw []byte, esc bool, whole []byte) string {
	if len(raw) > 0 && !esc && rd.share(whole) && rd.d.ValidUTF8(raw) {
		return unsafe.String(&raw[0], len(raw)) // raw is in rd.own, which nothing changes
	}
	return jsonfast.String(raw, esc)
}

// rawNonNull is raw with null as nil (nullToNil).
func (rd *recordDecoder) rawNonNull() []byte {
	if rd.d.Null() {
		return nil
	}
	return rd.raw()
}

// seen marks member bit b of an object and reports a duplicate.
func seen(mask *uint64, b uint) bool {
	if *mask&(1<<b) != 0 {
		return true
	}
	*mask |= 1 << b
	return false
}

var recordKeys = []string{"type", "uuid", "parentUuid", "logicalParentUuid", "sessionId", "timestamp", "cwd",
	"gitBranch", "version", "isSidechain", "isMeta", "is_meta", "message", "isCompactSummary", "permissionMode",
	"origin", "toolUseResult", "sourceToolAssistantUUID", "requestId", "isApiErrorMessage", "apiErrorStatus",
	"isAbortedMidStream", "error", "subtype", "content", "level", "attachment", "compactMetadata"}

// decode returns the record of line, or ok false when the fast path does
// not apply (bad JSON included: the caller's encoding/json pass reports it).
func (rd *recordDecoder) decode(line []byte) (rec *Record, ok bool) {
	rd.own = nil
	if len(line) >= ownLine {
		line = bytes.Clone(line) // copied, not zeroed first as make would
		rd.own = line
	}
	defer func() { rd.own = nil }()
	d := &rd.d
	d.Reset(line)
	if d.Kind() != '{' {
		return nil, false
	}
	d.Object()
	type recMsg struct {
		r Record
		m Message
	}
	rm := new(recMsg)
	r := &rm.r
	var mask uint64
	var isMeta, isMetaSnake, parentSet, uuidSet bool
	for key, esc, more := d.FirstKey(); more; key, esc, more = d.NextKey() {
		if esc {
			return nil, false
		}
		var bit uint
		switch string(key) {
		case "type":
			bit = 0
			r.Type = rd.str(slotType)
		case "uuid":
			bit = 1
			r.UUID = rd.uuid(&uuidSet)
		case "parentUuid":
			bit = 2
			r.ParentUUID = rd.uuid(&parentSet)
		case "logicalParentUuid":
			bit = 3
			var set bool
			r.LogicalParentUUID = rd.uuid(&set)
		case "sessionId":
			bit = 4
			r.SessionID = rd.str(slotSession)
		case "timestamp":
			bit = 5
			r.Timestamp = rd.str(-1)
		case "cwd":
			bit = 6
			r.Cwd = rd.str(slotCwd)
		case "gitBranch":
			bit = 7
			r.GitBranch = rd.str(slotBranch)
		case "version":
			bit = 8
			r.Version = rd.str(slotVersion)
		case "isSidechain":
			bit = 9
			r.IsSidechain = d.Bool()
		case "isMeta":
			bit = 10
			isMeta = d.Bool()
		case "is_meta":
			bit = 11
			isMetaSnake = d.Bool()
		case "message":
			bit = 12
			if d.Object() {
				rd.message(&rm.m)
				r.Message = &rm.m
			}
		case "isCompactSummary":
			bit = 13
			r.IsCompactSummary = d.Bool()
		case "permissionMode":
			bit = 14
			r.PermissionMode = rd.str(slotPerm)
		case "origin":
			bit = 15
			if d.Object() {
				r.Origin = rd.origin()
			}
		case "toolUseResult":
			bit = 16
			r.ToolUseResult = rd.rawNonNull()
		case "sourceToolAssistantUUID":
			bit = 17
			var set bool
			r.SourceToolAssistantUUID = rd.uuid(&set)
		case "requestId":
			bit = 18
			r.RequestID = rd.str(slotRequest)
		case "isApiErrorMessage":
			bit = 19
			r.IsAPIErrorMessage = d.Bool()
		case "apiErrorStatus":
			bit = 20
			if d.Kind() == '0' {
				if n, err := strconv.ParseFloat(string(d.Raw()), 64); err == nil {
					r.APIErrorStatus = int(n)
				}
			} else {
				d.Skip()
			}
		case "isAbortedMidStream":
			bit = 21
			r.IsAbortedMidStream = d.Bool()
		case "error":
			bit = 22
			r.Error = rd.rawNonNull()
		case "subtype":
			bit = 23
			r.Subtype = rd.str(slotSubtype)
		case "content":
			bit = 24
			if d.Kind() == '"' {
				r.Content = rd.str(-1)
			} else {
				d.Skip()
			}
		case "level":
			bit = 25
			r.Level = rd.str(slotLevel)
		case "attachment":
			bit = 26
			r.Attachment = rd.rawNonNull()
		case "compactMetadata":
			bit = 27
			r.CompactMetadata = rd.rawNonNull()
		default:
			if jsonfast.FoldKey(key, recordKeys...) {
				return nil, false
			}
			d.Skip()
			continue
		}
		if seen(&mask, bit) {
			return nil, false
		}
	}
	if !d.End() {
		return nil, false
	}
	r.IsMeta = isMeta || isMetaSnake
	if uuidSet {
		rd.last[slotUUID] = r.UUID
	}
	if r.SourceToolAssistantUUID != "" {
		rd.last[slotSource] = r.SourceToolAssistantUUID
	}
	return r, true
}

var messageKeys = []string{"id", "role", "model", "content", "stop_reason", "usage"}

// message decodes the members of an entered message object.
func (rd *recordDecoder) message(m *Message) {
	d := &rd.d
	var mask uint64
	for key, esc, more := d.FirstKey(); more; key, esc, more = d.NextKey() {
		if esc {
			d.SetOdd()
			d.Skip()
			continue
		}
		var bit uint
		switch string(key) {
		case "id":
			bit = 0
			m.ID = rd.str(slotMsgID)
		case "role":
			bit = 1
			m.Role = rd.str(slotRole)
		case "model":
			bit = 2
			m.Model = rd.str(slotModel)
		case "content":
			bit = 3
			m.Content = rd.content()
		case "stop_reason":
			bit = 4
			m.StopReason = rd.str(slotStop)
		case "usage":
			bit = 5
			m.Usage = rd.raw()
		default:
			if jsonfast.FoldKey(key, messageKeys...) {
				d.SetOdd()
			}
			d.Skip()
			continue
		}
		if seen(&mask, bit) {
			d.SetOdd()
		}
	}
}

// content decodes a message's content as Content.UnmarshalJSON does: a
// string is one text block, null is nil.
func (rd *recordDecoder) content() Content {
	d := &rd.d
	switch d.Kind() {
	case '"':
		return Content{{Type: "text", Text: rd.str(-1)}}
	case 'n':
		d.Skip()
		return nil
	case '[':
	default:
		d.SetOdd()
		d.Skip()
		return nil
	}
	d.Array()
	blk := rd.blk[:0]
	for more := d.FirstElem(); more; more = d.NextElem() {
		if d.Kind() != '{' {
			d.SetOdd()
			d.Skip()
			continue
		}
		d.Object()
		blk = append(blk, Block{})
		rd.block(&blk[len(blk)-1])
	}
	if blk == nil {
		// encoding/json makes an empty, non-nil slice of [].
		return Content{}
	}
	out := make(Content, len(blk))
	copy(out, blk)
	clear(blk)
	rd.blk = blk[:0]
	return out
}

var blockKeys = []string{"type", "text", "thinking", "signature", "data", "id", "name", "input",
	"tool_use_id", "content", "is_error", "source", "citations"}

// blockType returns the common block types without allocating.
func (rd *recordDecoder) blockType() string {
	raw, esc, ok := rd.d.StrRaw()
	if !ok {
		return ""
	}
	if !esc {
		switch string(raw) {
		case "text":
			return "text"
		case "thinking":
			return "thinking"
		case "redacted_thinking":
			return "redacted_thinking"
		case "tool_use":
			return "tool_use"
		case "tool_result":
			return "tool_result"
		case "image":
			return "image"
		case "document":
			return "document"
		}
	}
	return jsonfast.String(raw, esc)
}

// block decodes the members of an entered content block object.
func (rd *recordDecoder) block(b *Block) {
	d := &rd.d
	var mask uint64
	for key, esc, more := d.FirstKey(); more; key, esc, more = d.NextKey() {
		if esc {
			d.SetOdd()
			d.Skip()
			continue
		}
		var bit uint
		switch string(key) {
		case "type":
			bit = 0
			b.Type = rd.blockType()
		case "text":
			bit = 1
			b.Text = rd.str(-1)
		case "thinking":
			bit = 2
			b.Thinking = rd.str(-1)
		case "signature":
			bit = 3
			b.Signature = rd.str(-1)
		case "data":
			bit = 4
			b.Data = rd.str(-1)
		case "id":
			bit = 5
			b.ID = rd.str(-1)
		case "name":
			bit = 6
			b.Name = rd.str(slotName)
		case "input":
			bit = 7
			b.Input = rd.raw()
		case "tool_use_id":
			bit = 8
			b.ToolUseID = rd.str(-1)
		case "content":
			bit = 9
			if d.Kind() == '"' {
				b.Content, b.ContentText = rd.rawString()
				b.ContentIsText = b.Content != nil
			} else {
				b.Content = rd.raw()
			}
		case "is_error":
			bit = 10
			b.IsError = d.Bool()
		case "source":
			bit = 11
			b.Source = rd.raw()
		case "citations":
			bit = 12
			b.Citations = rd.raw()
		default:
			if jsonfast.FoldKey(key, blockKeys...) {
				d.SetOdd()
			}
			d.Skip()
			continue
		}
		if seen(&mask, bit) {
			d.SetOdd()
		}
	}
}

var originKeys = []string{"kind", "subkind"}

// origin decodes the members of an entered origin object.
func (rd *recordDecoder) origin() *Origin {
	d := &rd.d
	o := new(Origin)
	var mask uint64
	for key, esc, more := d.FirstKey(); more; key, esc, more = d.NextKey() {
		if esc {
			d.SetOdd()
			d.Skip()
			continue
		}
		var bit uint
		switch string(key) {
		case "kind":
			bit = 0
			o.Kind = rd.str(slotOrigin)
		case "subkind":
			bit = 1
			o.Subkind = rd.str(-1)
		default:
			if jsonfast.FoldKey(key, originKeys...) {
				d.SetOdd()
			}
			d.Skip()
			continue
		}
		if seen(&mask, bit) {
			d.SetOdd()
		}
	}
	return o
}
