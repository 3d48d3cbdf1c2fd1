//go:build race

package claude

// scribbleRecycled: tests run with the race detector (make test), and
// there a recycled frame is scribbled over (Recycle).
const scribbleRecycled = true
