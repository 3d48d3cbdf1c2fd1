package translate

import (
	"testing"
	"time"
)

// The results below are the pinned CLI's own texts (2.1.332).
const (
	cronRecurringResult = "Scheduled recurring job 5fd8006f (Every minute). Next run: Dec 3 5:26pm. Session-only (not written to disk, dies when Claude exits). Auto-expires after 30 days. Use CronDelete to cancel sooner."
	cronOnceResult      = "Scheduled one-shot task b06acf90 (59 23 31 12 *). Next run: Dec 31 11:59pm. Session-only (not written to disk, dies when Claude exits). It will fire once then auto-delete."
	wakeupResult        = "Next wakeup scheduled for 17:27:00 (in 63s). If you owe the user a status update this tick, write it now as ordinary response text; then end the turn — the harness re-invokes you when the wakeup fires or a task-notification arrives."
)

func TestScheduleKeepsTheSessionBusy(t *testing.T) {
	now := time.Date(2026, 12, 3, 17, 25, 10, 0, time.Local)
	t.Run("recurring until deleted", func(t *testing.T) {
		var sc schedule
		sc.observe("CronCreate", map[string]any{"cron": "*/1 * * * *", "prompt": "tick"}, cronRecurringResult, nil, false, now)
		if !sc.busy(now.Add(time.Hour)) || !sc.busy(now.Add(29*24*time.Hour)) {
			t.Fatal("a recurring job does not keep the session busy")
		}
		if sc.busy(now.Add(31 * 24 * time.Hour)) {
			t.Error("an expired job keeps the session busy")
		}
		sc.observe("CronCreate", map[string]any{"cron": "*/1 * * * *", "prompt": "tick"}, cronRecurringResult, nil, false, now)
		sc.observe("CronDelete", map[string]any{"id": "5fd8006f"}, "Cancelled job 5fd8006f.", nil, false, now)
		if sc.busy(now) {
			t.Error("a deleted job keeps the session busy")
		}
	})
	t.Run("one-shot until it ran", func(t *testing.T) {
		var sc schedule
		sc.observe("CronCreate", map[string]any{"cron": "59 23 31 12 *", "prompt": "once", "recurring": false}, cronOnceResult, nil, false, now)
		due := time.Date(2026, 12, 31, 23, 59, 0, 0, time.Local)
		if !sc.busy(due.Add(-time.Minute)) || !sc.busy(due.Add(time.Minute)) {
			t.Fatal("a one-shot job does not keep the session busy until it runs")
		}
		if sc.busy(due.Add(10 * time.Minute)) {
			t.Error("a one-shot job keeps the session busy after it ran")
		}
	})
	t.Run("wake-up until it fired, or stopped", func(t *testing.T) {
		var sc schedule
		sc.observe("ScheduleWakeup", map[string]any{"delaySeconds": 60.0, "prompt": "again"}, wakeupResult, nil, false, now)
		if !sc.busy(now.Add(62*time.Second)) || sc.busy(now.Add(63*time.Second+scheduleGrace)) {
			t.Error("a wake-up's window is wrong")
		}
		sc.observe("ScheduleWakeup", map[string]any{"delaySeconds": 60.0, "prompt": "again"}, wakeupResult, nil, false, now)
		sc.observe("ScheduleWakeup", map[string]any{"stop": true}, "Loop stopped.", nil, false, now)
		if sc.busy(now) {
			t.Error("a stopped loop keeps the session busy")
		}
	})
	t.Run("failed calls and a gone CLI", func(t *testing.T) {
		var sc schedule
		sc.observe("CronCreate", map[string]any{"cron": "x"}, "Invalid cron expression", nil, true, now)
		if sc.busy(now) {
			t.Error("a failed CronCreate keeps the session busy")
		}
		sc.observe("CronCreate", map[string]any{"cron": "*/1 * * * *"}, cronRecurringResult, nil, false, now)
		sc.observe("CronCreate", map[string]any{"cron": "*/1 * * * *"}, "Scheduled recurring job 0badcafe (Every minute). Next run: Dec 3 5:26pm. Auto-expires after 30 days.", nil, false, now)
		sc.cliGone()
		if _, ok := sc.jobs["5fd8006f"]; ok {
			t.Error("a session-only job outlived its CLI")
		}
		if _, ok := sc.jobs["0badcafe"]; !ok {
			t.Error("a durable job was forgotten with the CLI")
		}
	})
	t.Run("next run across the year", func(t *testing.T) {
		if got := nextRun("Jan 2 9:05am", now); got.Year() != 2027 || got.Month() != time.January {
			t.Errorf("Jan 2 seen on Dec 3: %v", got)
		}
		if got := nextRun("not a time", now); !got.IsZero() {
			t.Errorf("garbage: %v", got)
		}
	})
	var nilSchedule *schedule
	if nilSchedule.busy(now) {
		t.Error("a replay's (nil) schedule is busy")
	}
}
