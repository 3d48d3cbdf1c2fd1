package main

import (
	"bytes"
	"debug/pe"
	"encoding/binary"
	"testing"
)

// TestForwarderDLL reads the DLL back with debug/pe and follows its export
// table to the forwarder strings.
func TestForwarderDLL(t *testing.T) {
	dll := forwarderDLL("x.dll", map[string]string{"B": "k32.Bee", "A": "k32.Aye"})
	f, err := pe.NewFile(bytes.NewReader(dll))
	if err != nil {
		t.Fatal(err)
	}
	if f.Machine != pe.IMAGE_FILE_MACHINE_AMD64 || f.Characteristics&pe.IMAGE_FILE_DLL == 0 {
		t.Fatalf("machine %#x characteristics %#x", f.Machine, f.Characteristics)
	}
	oh := f.OptionalHeader.(*pe.OptionalHeader64)
	dir := oh.DataDirectory[pe.IMAGE_DIRECTORY_ENTRY_EXPORT]
	sec := f.Sections[0]
	data, err := sec.Data()
	if err != nil {
		t.Fatal(err)
	}
	at := func(rva uint32) []byte { return data[rva-sec.VirtualAddress:] }
	cstr := func(rva uint32) string { b := at(rva); return string(b[:bytes.IndexByte(b, 0)]) }
	le := binary.LittleEndian
	ed := at(dir.VirtualAddress)
	if got := cstr(le.Uint32(ed[12:])); got != "x.dll" {
		t.Errorf("name %q", got)
	}
	n := le.Uint32(ed[24:])
	funcs, names, ords := le.Uint32(ed[28:]), le.Uint32(ed[32:]), le.Uint32(ed[36:])
	got := map[string]string{}
	for i := uint32(0); i < n; i++ {
		name := cstr(le.Uint32(at(names + 4*i)))
		ord := le.Uint16(at(ords + 2*i))
		addr := le.Uint32(at(funcs + 4*uint32(ord)))
		if addr < dir.VirtualAddress || addr >= dir.VirtualAddress+dir.Size {
			t.Errorf("%s: address %#x is not a forwarder", name, addr)
		}
		got[name] = cstr(addr)
	}
	if len(got) != 2 || got["A"] != "k32.Aye" || got["B"] != "k32.Bee" {
		t.Errorf("exports %v", got)
	}
	if cstr(le.Uint32(at(names))) != "A" {
		t.Error("name table not sorted")
	}
}
