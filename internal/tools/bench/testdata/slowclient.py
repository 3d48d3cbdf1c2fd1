"""A line-by-line ACP client in Python, as an editor extension might be.

TestFocusSlowReader runs it (ACPBENCH_FOCUS_PYTHON=1) to check that the
bench's slow reader (slow.go), written in Go, costs the adapter what a
Python client does. argv: the adapter's command line; the environment is
the sandbox's. It opens a session, makes two warm-up turns, then the
streaming turn, and prints the adapter's CPU for it as JSON.
"""
import json, os, subprocess, sys, time


def schedstat(pid):
    cpu = runs = pre = 0
    for t in os.listdir(f"/proc/{pid}/task"):
        try:
            f = open(f"/proc/{pid}/task/{t}/schedstat").read().split()
            for line in open(f"/proc/{pid}/task/{t}/status"):
                if line.startswith("nonvoluntary_ctxt_switches:"):
                    pre += int(line.split()[1])
        except OSError:
            continue
        cpu += int(f[0]); runs += int(f[2])
    return cpu, runs, pre


def io(pid):
    out = {}
    for line in open(f"/proc/{pid}/io"):
        k, v = line.split(":")
        out[k] = int(v)
    return out


def main():
    cwd = os.environ["ACPBENCH_CWD"]
    p = subprocess.Popen(sys.argv[1:], stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=cwd)
    next_id = [0]
    lines = [0]

    def call(method, params):
        next_id[0] += 1
        rid = next_id[0]
        p.stdin.write((json.dumps({"jsonrpc": "2.0", "id": rid, "method": method, "params": params}) + "\n").encode())
        p.stdin.flush()
        chunks, first = 0, None
        for line in p.stdout:
            lines[0] += 1
            msg = json.loads(line)
            if msg.get("method") == "session/update":
                upd = msg["params"]["update"]
                if upd.get("sessionUpdate") == "agent_message_chunk":
                    c = upd.get("content") or {}
                    if c.get("type") == "text":
                        chunks += 1
                        if first is None:
                            first = time.perf_counter()
                continue
            if "method" in msg and "id" in msg:
                p.stdin.write((json.dumps({"jsonrpc": "2.0", "id": msg["id"], "error": {"code": -32601, "message": "method not found"}}) + "\n").encode())
                p.stdin.flush()
                continue
            if msg.get("id") == rid:
                if "error" in msg:
                    raise SystemExit(f"{method}: {msg['error']}")
                return msg["result"], chunks, first
        raise SystemExit(f"{method}: EOF")

    call("initialize", {"protocolVersion": 1})
    sid = call("session/new", {"cwd": cwd, "mcpServers": []})[0]["sessionId"]
    prompt = lambda text: call("session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": text}]})
    for i in range(2):
        prompt(f"warm up {i+1}: say hello")
        time.sleep(1)
    cpu0, runs0, pre0 = schedstat(p.pid); io0 = io(p.pid)
    lines[0] = 0
    t0 = time.perf_counter(); c0 = time.process_time()
    _, chunks, first = prompt("stream the long answer")
    t1 = time.perf_counter(); c1 = time.process_time()
    cpu1, runs1, pre1 = schedstat(p.pid); io1 = io(p.pid)
    p.stdin.close()
    p.wait()
    print(json.dumps({"cpu_ns": cpu1 - cpu0, "runs": runs1 - runs0, "preempted": pre1 - pre0, "writes": io1["syscw"] - io0["syscw"],
                      "reads": io1["syscr"] - io0["syscr"], "chunks": chunks, "turn_s": t1 - t0, "client_cpu_s": c1 - c0, "lines": lines[0], "first_s": first - t0}))


main()
