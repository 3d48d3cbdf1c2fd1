package transcript

//go:generate go run ../../internal/tools/shapegen

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

//jsonfast:shape record type uuid parentUuid logicalParentUuid sessionId timestamp cwd gitBranch version isSidechain isMeta is_meta=IsMetaSnake message isCompactSummary permissionMode origin toolUseResult sourceToolAssistantUUID requestId isApiErrorMessage apiErrorStatus isAbortedMidStream error subtype content level attachment compactMetadata

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
	var isMeta, isMetaSnake, parentSet, uuidSet bool
	var f recordFields
	for f.Next(d) {
		switch f.I {
		case recordType:
			r.Type = rd.str(slotType)
		case recordUUID:
			r.UUID = rd.uuid(&uuidSet)
		case recordParentUUID:
			r.ParentUUID = rd.uuid(&parentSet)
		case recordLogicalParentUUID:
			var set bool
			r.LogicalParentUUID = rd.uuid(&set)
		case recordSessionID:
			r.SessionID = rd.str(slotSession)
		case recordTimestamp:
			r.Timestamp = rd.str(-1)
		case recordCWD:
			r.Cwd = rd.str(slotCwd)
		case recordGitBranch:
			r.GitBranch = rd.str(slotBranch)
		case recordVersion:
			r.Version = rd.str(slotVersion)
		case recordIsSidechain:
			r.IsSidechain = d.Bool()
		case recordIsMeta:
			isMeta = d.Bool()
		case recordIsMetaSnake:
			isMetaSnake = d.Bool()
		case recordMessage:
			if d.Object() {
				rd.message(&rm.m)
				r.Message = &rm.m
			}
		case recordIsCompactSummary:
			r.IsCompactSummary = d.Bool()
		case recordPermissionMode:
			r.PermissionMode = rd.str(slotPerm)
		case recordOrigin:
			if d.Object() {
				r.Origin = rd.origin()
			}
		case recordToolUseResult:
			r.ToolUseResult = rd.rawNonNull()
		case recordSourceToolAssistantUUID:
			var set bool
			r.SourceToolAssistantUUID = rd.uuid(&set)
		case recordRequestID:
			r.RequestID = rd.str(slotRequest)
		case recordIsAPIErrorMessage:
			r.IsAPIErrorMessage = d.Bool()
		case recordAPIErrorStatus:
			if d.Kind() == '0' {
				if n, err := strconv.ParseFloat(string(d.Raw()), 64); err == nil {
					r.APIErrorStatus = int(n)
				}
			} else {
				d.Skip()
			}
		case recordIsAbortedMidStream:
			r.IsAbortedMidStream = d.Bool()
		case recordError:
			r.Error = rd.rawNonNull()
		case recordSubtype:
			r.Subtype = rd.str(slotSubtype)
		case recordContent:
			if d.Kind() == '"' {
				r.Content = rd.str(-1)
			} else {
				d.Skip()
			}
		case recordLevel:
			r.Level = rd.str(slotLevel)
		case recordAttachment:
			r.Attachment = rd.rawNonNull()
		case recordCompactMetadata:
			r.CompactMetadata = rd.rawNonNull()
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

//jsonfast:shape message id role model content stop_reason usage

// message decodes the members of an entered message object.
func (rd *recordDecoder) message(m *Message) {
	d := &rd.d
	var f messageFields
	for f.Next(d) {
		switch f.I {
		case messageID:
			m.ID = rd.str(slotMsgID)
		case messageRole:
			m.Role = rd.str(slotRole)
		case messageModel:
			m.Model = rd.str(slotModel)
		case messageContent:
			m.Content = rd.content()
		case messageStopReason:
			m.StopReason = rd.str(slotStop)
		case messageUsage:
			m.Usage = rd.raw()
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

//jsonfast:shape contentBlock type text thinking signature data id name input tool_use_id content is_error source citations

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
	var f contentBlockFields
	for f.Next(d) {
		switch f.I {
		case contentBlockType:
			b.Type = rd.blockType()
		case contentBlockText:
			b.Text = rd.str(-1)
		case contentBlockThinking:
			b.Thinking = rd.str(-1)
		case contentBlockSignature:
			b.Signature = rd.str(-1)
		case contentBlockData:
			b.Data = rd.str(-1)
		case contentBlockID:
			b.ID = rd.str(-1)
		case contentBlockName:
			b.Name = rd.str(slotName)
		case contentBlockInput:
			b.Input = rd.raw()
		case contentBlockToolUseID:
			b.ToolUseID = rd.str(-1)
		case contentBlockContent:
			if d.Kind() == '"' {
				b.Content, b.ContentText = rd.rawString()
				b.ContentIsText = b.Content != nil
			} else {
				b.Content = rd.raw()
			}
		case contentBlockIsError:
			b.IsError = d.Bool()
		case contentBlockSource:
			b.Source = rd.raw()
		case contentBlockCitations:
			b.Citations = rd.raw()
		}
	}
}

//jsonfast:shape origin kind subkind

// origin decodes the members of an entered origin object.
func (rd *recordDecoder) origin() *Origin {
	d := &rd.d
	o := new(Origin)
	var f originFields
	for f.Next(d) {
		switch f.I {
		case originKind:
			o.Kind = rd.str(slotOrigin)
		case originSubkind:
			o.Subkind = rd.str(-1)
		}
	}
	return o
}
