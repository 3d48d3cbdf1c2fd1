package translate

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Scheduled work. Claude Code runs cron jobs (CronCreate) and /loop
// wake-ups (ScheduleWakeup) inside the CLI process: a job fires only while
// that process runs, and a session-only job dies with it. A session that
// hibernated would never see its job fire again. So a session with
// scheduled work is busy (agent/hibernate.go) until the work is gone: a
// recurring job until CronDelete removes it (or its 30-day expiry), a
// one-shot job or a wake-up until a little after its time (it has fired by
// then, and the turn it starts keeps the session busy while it runs). The
// jobs are learnt from the tools' results, as the CLI reports them.

// schedule is the scheduled work of a live session's CLI, owned by the
// session goroutine (through its Translator).
type schedule struct {
	jobs map[string]scheduledJob // by the CLI's job id
	// wakeDue is when the last /loop wake-up fires (zero: none pending).
	wakeDue time.Time
}

type scheduledJob struct {
	recurring bool
	durable   bool      // survives the CLI (written to .claude/scheduled_tasks.json)
	due       time.Time // a one-shot job's run; zero when unknown
	expires   time.Time // a recurring job's automatic expiry
}

// Margins around the times the CLI gives: a one-shot job may run up to
// 90 s early or somewhat late, and a recurring one expires after 30 days.
const (
	scheduleGrace     = 2 * time.Minute
	recurringLifetime = 30 * 24 * time.Hour
)

// busy reports whether scheduled work is still to fire at now.
func (sc *schedule) busy(now time.Time) bool {
	if sc == nil {
		return false
	}
	if !sc.wakeDue.IsZero() {
		if now.Before(sc.wakeDue.Add(scheduleGrace)) {
			return true
		}
		sc.wakeDue = time.Time{}
	}
	for id, j := range sc.jobs {
		switch {
		case j.recurring && now.Before(j.expires),
			!j.recurring && (j.due.IsZero() || now.Before(j.due.Add(scheduleGrace))):
			return true
		}
		delete(sc.jobs, id) // fired, or expired
	}
	return false
}

// cliGone forgets the jobs that lived only in the CLI that ended.
func (sc *schedule) cliGone() {
	if sc == nil {
		return
	}
	sc.wakeDue = time.Time{}
	for id, j := range sc.jobs {
		if !j.durable {
			delete(sc.jobs, id)
		}
	}
}

var (
	jobIDRE   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\b(?:job|task) ([0-9a-f]{6,})\b`) })
	nextRunRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`Next run: ([A-Z][a-z]{2} \d{1,2} \d{1,2}:\d{2}[ap]m)`)
	})
	wakeInRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\(in (\d+)s\)`) })
)

// observe learns from one tool result of the live CLI.
func (sc *schedule) observe(name string, in map[string]any, text string, structured json.RawMessage, isError bool, now time.Time) {
	if isError {
		return
	}
	switch name {
	case "CronCreate":
		var r struct {
			ID        string `json:"id"`
			Recurring *bool  `json:"recurring"`
			Durable   *bool  `json:"durable"`
		}
		_ = json.Unmarshal(structured, &r)
		if r.ID == "" {
			if m := jobIDRE().FindStringSubmatch(text); m != nil {
				r.ID = m[1]
			}
		}
		if r.ID == "" {
			return
		}
		j := scheduledJob{recurring: in["recurring"] != false, durable: !strings.Contains(text, "Session-only")}
		if r.Recurring != nil {
			j.recurring = *r.Recurring
		}
		if j.recurring {
			j.expires = now.Add(recurringLifetime)
		} else if m := nextRunRE().FindStringSubmatch(text); m != nil {
			j.due = nextRun(m[1], now)
		}
		if sc.jobs == nil {
			sc.jobs = map[string]scheduledJob{}
		}
		sc.jobs[r.ID] = j
	case "CronDelete":
		if id, ok := in["id"].(string); ok {
			delete(sc.jobs, id)
		}
	case "ScheduleWakeup":
		if in["stop"] == true {
			sc.wakeDue = time.Time{}
			return
		}
		if m := wakeInRE().FindStringSubmatch(text); m != nil {
			if secs, err := strconv.Atoi(m[1]); err == nil {
				sc.wakeDue = now.Add(time.Duration(secs) * time.Second)
				return
			}
		}
		if d, ok := in["delaySeconds"].(float64); ok {
			sc.wakeDue = now.Add(time.Duration(min(max(d, 60), 3600)) * time.Second)
		}
	}
}

// nextRun reads the CLI's "Next run: Dec 31 11:59pm" (local time, no
// year) as the next such moment from now; zero if it does not parse.
func nextRun(s string, now time.Time) time.Time {
	t, err := time.ParseInLocation("Jan 2 3:04pm", s, now.Location())
	if err != nil {
		return time.Time{}
	}
	t = t.AddDate(now.Year()-t.Year(), 0, 0)
	if t.Before(now.Add(-24 * time.Hour)) {
		t = t.AddDate(1, 0, 0)
	}
	return t
}
