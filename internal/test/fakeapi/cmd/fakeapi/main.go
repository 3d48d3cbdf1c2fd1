// Command fakeapi runs the fake Anthropic Messages API on a free loopback port, for
// benchmarks and manual runs that drive other programs (the CLI, the agent) against it.
//
// It prints the base URL as the first line of stdout, then serves until SIGINT or SIGTERM.
// Steps can be preloaded from a JSON file (-script) and changed at run time through
// POST /__script and /__append; see the fakeapi package documentation.
//
//	fakeapi -script steps.json [-log requests.json]
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/claude-agent-acp/claude-agent-acp/internal/test/fakeapi"
)

func main() {
	script := flag.String("script", "", "JSON file holding a list of steps to queue")
	logFile := flag.String("log", "", "write the JSON request log to this file on exit")
	flag.Parse()
	if err := run(*script, *logFile); err != nil {
		fmt.Fprintln(os.Stderr, "fakeapi:", err)
		os.Exit(1)
	}
}

func run(script, logFile string) error {
	var steps []fakeapi.Step
	if script != "" {
		data, err := os.ReadFile(script)
		if err != nil {
			return err
		}
		if err := json.Unmarshal(data, &steps); err != nil {
			return fmt.Errorf("%s: %w", script, err)
		}
		for i := range steps {
			if err := steps[i].Validate(); err != nil {
				return fmt.Errorf("%s: step %d: %w", script, i, err)
			}
		}
	}
	srv, err := fakeapi.Start()
	if err != nil {
		return err
	}
	srv.Script(steps...)
	fmt.Println(srv.URL())

	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	<-sig
	if err := srv.Close(); err != nil {
		return err
	}
	if logFile == "" {
		return nil
	}
	data, err := json.MarshalIndent(srv.Requests(), "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(logFile, data, 0o644)
}
