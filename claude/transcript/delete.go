package transcript

import (
	"errors"
	"fmt"
	"os"
	"strings"
)

// Delete removes every transcript of sessionID, in all project directories,
// with the sibling directory that holds its subagent transcripts. There is
// no CLI command for this: the SDK's deleteSession, which the adapter calls
// for session/delete, works on the files directly. It returns ErrNotFound
// when there was nothing to delete (the adapter treats that as success) and
// ErrInvalidID for an id that is not a UUID.
//
// Forking is not done here: the CLI forks a whole session itself when
// resumed with --fork-session.
func Delete(configDir, sessionID string) error {
	paths, err := findAll(configDir, sessionID)
	if err != nil {
		return err
	}
	if len(paths) == 0 {
		return fmt.Errorf("%w: %s", ErrNotFound, sessionID)
	}
	var errs []error
	for _, p := range paths {
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
			continue
		}
		// The id was validated, so this stays inside the project directory.
		if err := os.RemoveAll(strings.TrimSuffix(p, ".jsonl")); err != nil {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("transcript: deleting session: %w", err)
	}
	return nil
}
