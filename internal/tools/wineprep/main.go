// Command wineprep prepares a Wine prefix for running Go's Windows test
// binaries on Linux (scripts/test-windows.sh, docs/platforms.md).
//
// Go 1.24 and later need bcryptprimitives.dll!ProcessPrng at startup, which
// Wine 8 (Debian 12) lacks. wineprep creates the prefix if needed and
// writes into its system32 a code-free DLL of that name whose ProcessPrng
// is an export forwarder to advapi32!SystemFunction036 (RtlGenRandom): the
// same contract (fill a buffer with random bytes, return TRUE) for the
// arguments Go passes.
//
//	go run ./internal/tools/wineprep -wine /usr/lib/wine/wine64 -prefix .deps/wine
package main

import (
	"bytes"
	"encoding/binary"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
)

func main() {
	wine := flag.String("wine", "wine64", "the wine64 executable")
	prefix := flag.String("prefix", os.Getenv("WINEPREFIX"), "the Wine prefix (WINEPREFIX)")
	flag.Parse()
	if err := prepare(*wine, *prefix); err != nil {
		fmt.Fprintln(os.Stderr, "wineprep:", err)
		os.Exit(1)
	}
}

func prepare(wine, prefix string) error {
	if prefix == "" {
		return fmt.Errorf("no prefix: set -prefix or WINEPREFIX")
	}
	prefix, err := filepath.Abs(prefix)
	if err != nil {
		return err
	}
	sys32 := filepath.Join(prefix, "drive_c", "windows", "system32")
	if _, err := os.Stat(sys32); err != nil {
		if err := os.MkdirAll(prefix, 0o755); err != nil {
			return err
		}
		cmd := exec.Command(wine, "wineboot", "-i")
		cmd.Env = append(os.Environ(), "WINEPREFIX="+prefix, "WINEDEBUG=-all")
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("wineboot: %v\n%s", err, out)
		}
	}
	dll := forwarderDLL("bcryptprimitives.dll", map[string]string{
		"ProcessPrng": "advapi32.SystemFunction036",
	})
	path := filepath.Join(sys32, "bcryptprimitives.dll")
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, dll) {
		return nil
	}
	return os.WriteFile(path, dll, 0o644)
}

// forwarderDLL returns a PE32+ (x86-64) DLL named name that has no code:
// each export in fwd is forwarded to "dll.Function".
func forwarderDLL(name string, fwd map[string]string) []byte {
	const (
		fileAlign = 0x200
		sectAlign = 0x1000
		rva       = 0x1000 // of the only section, .edata
		dirSize   = 40     // IMAGE_EXPORT_DIRECTORY
	)
	le := binary.LittleEndian
	names := make([]string, 0, len(fwd))
	for n := range fwd {
		names = append(names, n)
	}
	sort.Strings(names) // the name table must be sorted
	n := len(names)

	// .edata: directory, address table, name pointers, ordinals, strings.
	funcs := dirSize
	namePtrs := funcs + 4*n
	ords := namePtrs + 4*n
	var strs bytes.Buffer
	strBase := ords + 2*n
	addStr := func(s string) uint32 {
		off := strBase + strs.Len()
		strs.WriteString(s)
		strs.WriteByte(0)
		return uint32(rva + off)
	}
	edata := make([]byte, strBase)
	le.PutUint32(edata[12:], addStr(name)) // Name
	le.PutUint32(edata[16:], 1)            // Base
	le.PutUint32(edata[20:], uint32(n))    // NumberOfFunctions
	le.PutUint32(edata[24:], uint32(n))    // NumberOfNames
	le.PutUint32(edata[28:], uint32(rva+funcs))
	le.PutUint32(edata[32:], uint32(rva+namePtrs))
	le.PutUint32(edata[36:], uint32(rva+ords))
	for i, exp := range names {
		le.PutUint32(edata[namePtrs+4*i:], addStr(exp))
		le.PutUint16(edata[ords+2*i:], uint16(i))
		// An address inside the export directory's range is a forwarder
		// string, not code.
		le.PutUint32(edata[funcs+4*i:], addStr(fwd[exp]))
	}
	edata = append(edata, strs.Bytes()...)

	raw := (len(edata) + fileAlign - 1) &^ (fileAlign - 1)
	out := make([]byte, fileAlign+raw)
	copy(out, "MZ")
	le.PutUint32(out[0x3c:], 0x40) // e_lfanew
	p := 0x40
	copy(out[p:], "PE\x00\x00")
	p += 4
	le.PutUint16(out[p:], 0x8664)    // Machine: AMD64
	le.PutUint16(out[p+2:], 1)       // NumberOfSections
	le.PutUint16(out[p+16:], 240)    // SizeOfOptionalHeader
	le.PutUint16(out[p+18:], 0x2022) // EXECUTABLE_IMAGE | LARGE_ADDRESS_AWARE | DLL
	o := p + 20
	le.PutUint16(out[o:], 0x20b)          // PE32+
	le.PutUint64(out[o+24:], 0x6f0000000) // ImageBase
	le.PutUint32(out[o+32:], sectAlign)
	le.PutUint32(out[o+36:], fileAlign)
	le.PutUint16(out[o+40:], 6)                                                   // MajorOperatingSystemVersion
	le.PutUint16(out[o+48:], 6)                                                   // MajorSubsystemVersion
	le.PutUint32(out[o+56:], uint32(rva+(len(edata)+sectAlign-1)&^(sectAlign-1))) // SizeOfImage
	le.PutUint32(out[o+60:], fileAlign)                                           // SizeOfHeaders
	le.PutUint16(out[o+68:], 3)                                                   // Subsystem: console
	le.PutUint64(out[o+72:], 0x100000)                                            // stack reserve
	le.PutUint64(out[o+80:], 0x1000)                                              // stack commit
	le.PutUint64(out[o+88:], 0x100000)                                            // heap reserve
	le.PutUint64(out[o+96:], 0x1000)                                              // heap commit
	le.PutUint32(out[o+108:], 16)                                                 // NumberOfRvaAndSizes
	le.PutUint32(out[o+112:], rva)                                                // export directory
	le.PutUint32(out[o+116:], uint32(len(edata)))
	s := o + 240
	copy(out[s:], ".edata")
	le.PutUint32(out[s+8:], uint32(len(edata))) // VirtualSize
	le.PutUint32(out[s+12:], rva)
	le.PutUint32(out[s+16:], uint32(raw))
	le.PutUint32(out[s+20:], fileAlign)  // PointerToRawData
	le.PutUint32(out[s+36:], 0x40000040) // INITIALIZED_DATA | MEM_READ
	copy(out[fileAlign:], edata)
	return out
}
