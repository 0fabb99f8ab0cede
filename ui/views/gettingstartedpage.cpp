#include "views/gettingstartedpage.h"

namespace tb {

QString GettingStartedPage::html()
{
    return tr(
        "<h2>Getting started</h2>"
        "<h3>1. A first run, on the built-in simulator</h3>"
        "<p>On first start the target is the simulator built into TokenBench, so <b>Run</b> (Ctrl+R) works at "
        "once: press it. The <b>Dashboard</b> fills as requests finish; its progress bar says the stage, how far "
        "the run is and when it ends. <b>Stop</b> (Esc) ends a run early; what was measured is kept. Every "
        "run is saved as a folder and listed on the <b>Runs</b> tab, where a double click opens it again.</p>"
        "<h3>2. Your own server</h3>"
        "<p>On <b>Configure</b> ▸ <b>Target</b>, <b>Add</b> a profile (or <b>Duplicate</b> one) and fill in "
        "<b>Base URL</b> (e.g. http://localhost:8000/v1), <b>API</b> (the request format the server speaks) and "
        "<b>Model</b>. For a key, give <b>Key variable</b> the name of the environment variable that holds it: only "
        "the name is saved, never the key (a key typed into <b>API key</b> stays in memory). <b>Test "
        "connection</b> (Ctrl+T) asks the server for its models: it says whether the URL and the key work and "
        "lists the models; click one to use it. <b>Workload</b> sets what each request sends (prompt and output "
        "lengths), <b>Load</b> how hard and how long (users or a request rate, and when to stop).</p>"
        "<h3>3. Reading the dashboard</h3>"
        "<p>The tiles give the run's key figures: requests and output tokens per second, time to first token "
        "(<b>TTFT p50</b>: half of the requests were faster; <b>TTFT p99</b>: all but 1%), end-to-end time "
        "(<b>E2E p99</b>) and <b>Errors</b>. The charts below show the same over time and as distributions; a run "
        "with failed requests says the causes in red above them. <b>Summary</b> has every figure by stage, with "
        "exact numbers; <b>Requests</b> every single request (select one for its details). Help ▸ "
        "<b>Metrics</b> says how each figure is measured.</p>"
        "<h3>4. A sweep and its knee</h3>"
        "<p>To find how much load the server takes: on <b>Load</b>, set <b>Shape</b> to stages, type a sweep such "
        "as <code>c=1..64:20s</code> (1, 2, 4 … 64 users, 20 s each) into <b>Sweep</b> and press <b>Generate "
        "Sweep</b>, then <b>Run</b>. The dashboard adds a throughput–latency chart: a point per stage, and the "
        "knee ringed — the stage of the highest throughput that still beat every earlier stage by at least 5%; "
        "the stages after it add little throughput while latency grows.</p>"
        "<h3>5. Comparing runs</h3>"
        "<p>On the <b>Runs</b> tab, select two runs or more (Ctrl+click) and press <b>Compare</b>, or use "
        "<b>Compare</b> ▸ <b>Compare Runs…</b>. The comparison shows every metric side by side against the first "
        "run (the baseline), says which differences are larger than run-to-run noise, and overlays the runs' "
        "charts. <b>New Comparison Session…</b> runs the same workload against several targets in turn.</p>"
        "<h3>6. Exporting</h3>"
        "<p>File ▸ <b>Export…</b> (Ctrl+E) writes the run's requests, time series and summary as CSV and its "
        "charts as PNG, SVG or PDF; right-click a chart to export only it. A comparison saves its report (HTML), "
        "its table (CSV) and its charts. Every export and save starts in the folder you last picked in any of "
        "them. <b>Save Configuration</b> (Ctrl+S) writes the forms as JSON, which <code>tokenbench-cli run "
        "--config</code> runs the same way, without a window.</p>");
}

} // namespace tb
