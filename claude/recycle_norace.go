//go:build !race

package claude

// scribbleRecycled is false in the builds users run: a recycled frame is
// only reused (Recycle).
const scribbleRecycled = false
