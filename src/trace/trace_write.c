/* A trace's two file formats: Chrome's trace event JSON (Perfetto UI,
 * chrome://tracing) and one self-contained HTML page. */
#include "trace/trace_write.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "spool.h"

#define SPOOL__STR2(x) #x
#define SPOOL__STR(x) SPOOL__STR2(x)
#define SPOOL__VERSION_STRING                                                                  \
    SPOOL__STR(SPOOL_VERSION_MAJOR) "." SPOOL__STR(SPOOL_VERSION_MINOR) "." SPOOL__STR(SPOOL_VERSION_PATCH)

#if SPOOL__TRACE_ENABLED

static const char *kind_category(unsigned kind)
{
    switch (kind) {
    case SPOOL__TRACE_JOB:
        return "job";
    case SPOOL__TRACE_WAIT:
        return "wait";
    case SPOOL__TRACE_SLEEP:
        return "sleep";
    default:
        return "search";
    }
}

/* A JSON string, with <, > and & escaped too so that it can sit inside an
 * HTML script element. */
static void put_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s != '\0'; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20 || c == '<' || c == '>' || c == '&')
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

static void put_source(FILE *f, const spool__span_t *s)
{
    switch (spool__span_from(s)) {
    case SPOOL__FROM_STOLEN:
        fprintf(f, "\"stolen from worker %u\"", spool__span_victim(s));
        break;
    case SPOOL__FROM_INJECTOR:
        fputs("\"injector\"", f);
        break;
    case SPOOL__FROM_BROADCAST:
        fputs("\"broadcast\"", f);
        break;
    case SPOOL__FROM_AT_SPAWN:
        fputs("\"run at its spawn (no memory for a job)\"", f);
        break;
    case SPOOL__FROM_LENT:
        fputs("\"lent (an OpenMP team)\"", f);
        break;
    default:
        fputs("\"own deque\"", f);
    }
}

static const char *fn_name(const spool__snapshot_t *snap, uint64_t fn)
{
    return snap->names[spool__snapshot_name_index(snap, fn)].name;
}

/* A span's name: its function for a job, what it waited for for a wait. */
static void put_span_name(FILE *f, const spool__snapshot_t *snap, const spool__span_t *s)
{
    unsigned kind = spool__span_kind(s);
    if (kind == SPOOL__TRACE_JOB) {
        put_string(f, fn_name(snap, s->fn));
    } else if (kind == SPOOL__TRACE_WAIT && s->fn != 0) {
        char buf[600];
        snprintf(buf, sizeof buf, "wait for %s", fn_name(snap, s->fn));
        put_string(f, buf);
    } else {
        fprintf(f, "\"%s\"", kind_category(kind));
    }
}

static FILE *open_for_write(const char *path, int *err)
{
    errno = 0;
    FILE *f = fopen(path, "w");
    if (f == NULL)
        *err = errno != 0 ? errno : EIO;
    return f;
}

static int close_written(FILE *f)
{
    int err = ferror(f) ? (errno != 0 ? errno : EIO) : 0;
    if (fclose(f) != 0 && err == 0)
        err = errno != 0 ? errno : EIO;
    return err;
}

int spool__trace_write_json(const spool__snapshot_t *snap, const char *path)
{
    int err;
    FILE *f = open_for_write(path, &err);
    if (f == NULL)
        return err;
    fputs("{\"traceEvents\":[\n", f);
    fprintf(f, "{\"ph\":\"M\",\"pid\":1,\"tid\":0,\"name\":\"process_name\","
               "\"args\":{\"name\":\"spool pool (%u workers)\"}}",
            snap->num_workers);
    for (unsigned i = 0; i < snap->num_workers; i++) {
        fprintf(f, ",\n{\"ph\":\"M\",\"pid\":1,\"tid\":%u,\"name\":\"thread_name\",\"args\":{\"name\":", i + 1);
        put_string(f, snap->workers[i].name);
        fprintf(f, "}},\n{\"ph\":\"M\",\"pid\":1,\"tid\":%u,\"name\":\"thread_sort_index\","
                   "\"args\":{\"sort_index\":%u}}",
                i + 1, i);
    }
    unsigned long long flow = 0;
    for (unsigned i = 0; i < snap->num_workers; i++) {
        const spool__worker_snapshot_t *w = &snap->workers[i];
        for (size_t k = 0; k < w->count; k++) {
            const spool__span_t *s = &w->spans[k];
            unsigned kind = spool__span_kind(s);
            double ts = s->start_ns / 1000.0, dur = (s->end_ns - s->start_ns) / 1000.0;
            fprintf(f, ",\n{\"ph\":\"X\",\"pid\":1,\"tid\":%u,\"ts\":%.3f,\"dur\":%.3f,\"cat\":\"%s\",\"name\":",
                    i + 1, ts, dur < 0 ? 0.0 : dur, kind_category(kind));
            put_span_name(f, snap, s);
            fprintf(f, ",\"args\":{\"worker\":%u,\"depth\":%u", i, spool__span_depth(s));
            if (kind == SPOOL__TRACE_JOB) {
                fputs(",\"from\":", f);
                put_source(f, s);
                if (spool__span_dropped(s))
                    fputs(",\"dropped\":\"its scope was cancelled\"", f);
                fprintf(f, ",\"fn\":\"0x%llx\",\"arg\":\"0x%llx\"", (unsigned long long)s->fn,
                        (unsigned long long)s->arg);
            } else if (kind == SPOOL__TRACE_WAIT && s->fn != 0) {
                fprintf(f, ",\"fn\":\"0x%llx\",\"arg\":\"0x%llx\"", (unsigned long long)s->fn,
                        (unsigned long long)s->arg);
            }
            fputs("}}", f);
            if (kind == SPOOL__TRACE_JOB && spool__span_from(s) == SPOOL__FROM_STOLEN &&
                spool__span_victim(s) < snap->num_workers) {
                /* A flow arrow from the victim's row to the thief's job. */
                flow++;
                fprintf(f, ",\n{\"ph\":\"s\",\"pid\":1,\"tid\":%u,\"ts\":%.3f,\"id\":%llu,"
                           "\"cat\":\"steal\",\"name\":\"steal\"}",
                        spool__span_victim(s) + 1, ts, flow);
                fprintf(f, ",\n{\"ph\":\"f\",\"bp\":\"e\",\"pid\":1,\"tid\":%u,\"ts\":%.3f,\"id\":%llu,"
                           "\"cat\":\"steal\",\"name\":\"steal\"}",
                        i + 1, ts, flow);
            }
        }
    }
    fprintf(f, "\n],\n\"displayTimeUnit\":\"ns\",\n\"otherData\":{\"spool_version\":\"%s\","
               "\"clock\":\"%s\",\"duration_us\":%.3f,\"workers\":[",
            SPOOL__VERSION_STRING, snap->clock, snap->duration_ns / 1000.0);
    for (unsigned i = 0; i < snap->num_workers; i++)
        fprintf(f, "%s{\"worker\":%u,\"records\":%zu,\"lost\":%llu}", i > 0 ? "," : "", i,
                snap->workers[i].count, (unsigned long long)snap->workers[i].lost);
    fputs("]}}\n", f);
    return close_written(f);
}

/* ---- HTML ---------------------------------------------------------------- */

typedef struct summary {
    double busy_ns, search_ns, sleep_ns;
    unsigned long long jobs, steals, wakeups;
} summary_t;

/* busy: inside a job the worker started from its main loop, less any idle
 * search inside it (waiting for a stolen half); search excludes sleep. */
static summary_t summarise(const spool__worker_snapshot_t *w)
{
    summary_t sum = {0, 0, 0, 0, 0, 0};
    double search_inside_jobs = 0;
    for (size_t k = 0; k < w->count; k++) {
        const spool__span_t *s = &w->spans[k];
        double d = s->end_ns - s->start_ns;
        switch (spool__span_kind(s)) {
        case SPOOL__TRACE_JOB:
            sum.jobs++;
            if (spool__span_from(s) == SPOOL__FROM_STOLEN)
                sum.steals++;
            if (spool__span_depth(s) == 0)
                sum.busy_ns += d;
            break;
        case SPOOL__TRACE_SEARCH:
            sum.search_ns += d;
            if (spool__span_depth(s) > 0)
                search_inside_jobs += d;
            break;
        case SPOOL__TRACE_SLEEP:
            sum.sleep_ns += d;
            sum.wakeups++;
            break;
        default:
            break;
        }
    }
    sum.busy_ns -= search_inside_jobs;
    sum.search_ns -= sum.sleep_ns;
    if (sum.busy_ns < 0)
        sum.busy_ns = 0;
    if (sum.search_ns < 0)
        sum.search_ns = 0;
    return sum;
}

static const char html_head[] =
    "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
    "<title>spool timeline</title>\n<style>\n"
    "body{font:13px sans-serif;margin:14px;color:#222}\n"
    "h1{font-size:18px;margin:0 0 6px}\n"
    "#wrap{position:relative;border:1px solid #bbb;margin-top:6px}\n"
    "canvas{display:block;width:100%}\n"
    "#tip{position:absolute;pointer-events:none;background:#fffbe6;border:1px solid #999;"
    "padding:3px 6px;display:none;white-space:pre;font-size:12px}\n"
    "table{border-collapse:collapse;margin-top:12px}\n"
    "td,th{border:1px solid #ccc;padding:2px 9px;text-align:right}\n"
    "th{background:#f0f0f0}td:first-child{text-align:left}\n"
    ".key i{display:inline-block;width:14px;height:10px;margin:0 4px 0 14px;vertical-align:middle}\n"
    "</style></head><body>\n";

/* One string per line: ISO C only promises 4095-character literals. */
static const char *const html_script[] = {
    "<script>\n",
    "(function(){\n",
    "var D=JSON.parse(document.getElementById('trace-data').textContent);\n",
    "var cv=document.getElementById('timeline'),cx=cv.getContext('2d'),tip=document.getElementById('tip');\n",
    "var LANE=15,GAP=8,LABEL=96,AXIS=22,rows=[],H=AXIS;\n",
    "D.workers.forEach(function(w){var md=0;w.spans.forEach(function(s){if(s[6]>md)md=s[6];});\n",
    " rows.push({y:H,h:(md+1)*LANE});H+=(md+1)*LANE+GAP;});\n",
    "var T=D.duration_us>0?D.duration_us:1,t0=0,t1=T;\n",
    "function colour(i){return 'hsl('+((i*137.508)%360).toFixed(0)+',62%,62%)';}\n",
    "function wid(){return cv.clientWidth;}\n",
    "function X(t){return LABEL+(t-t0)/(t1-t0)*(wid()-LABEL);}\n",
    "function fmt(us){return us>=1000?(us/1000).toFixed(us>=100000?0:2)+' ms':us.toFixed(us>=10?1:3)+' \\u00b5s';}\n",
    "var KIND=['','job','wait','search','sleep'];\n",
    "function label(s){return s[0]==1?D.names[s[3]]:s[0]==2?(s[3]>=0?'wait for '+D.names[s[3]]:'wait'):KIND[s[0]];}\n",
    "function draw(){var r=window.devicePixelRatio||1,w=wid();cv.width=w*r;cv.height=H*r;cv.style.height=H+'px';\n",
    " cx.setTransform(r,0,0,r,0,0);cx.clearRect(0,0,w,H);cx.font='11px sans-serif';\n",
    " var span=t1-t0,step=Math.pow(10,Math.floor(Math.log10(span/4)));\n",
    " if(span/step>10)step*=2;if(span/step>10)step*=2.5;\n",
    " cx.strokeStyle='#e6e6e6';cx.fillStyle='#444';\n",
    " for(var t=Math.ceil(t0/step)*step;t<=t1;t+=step){var x=X(t);cx.beginPath();cx.moveTo(x,AXIS-5);cx.lineTo(x,H);cx.stroke();cx.fillText(fmt(t),x+2,12);}\n",
    " D.workers.forEach(function(wk,i){var row=rows[i];cx.fillStyle='#f6f6f6';cx.fillRect(LABEL,row.y,w-LABEL,row.h);\n",
    "  cx.fillStyle='#222';cx.fillText(wk.name,4,row.y+11);\n",
    "  wk.spans.forEach(function(s){var a=X(s[1]),b=X(s[1]+s[2]);if(b<LABEL||a>w)return;if(a<LABEL)a=LABEL;\n",
    "   var d=Math.max(b-a,0.6),y=row.y+s[6]*LANE;\n",
    "   if(s[0]==1){cx.fillStyle=colour(s[3]);cx.fillRect(a,y+1,d,LANE-2);\n",
    "    if(d>36){cx.save();cx.beginPath();cx.rect(a,y,d,LANE);cx.clip();cx.fillStyle='#111';cx.fillText(D.names[s[3]],a+2,y+11);cx.restore();}}\n",
    "   else if(s[0]==2){cx.strokeStyle='#444';cx.setLineDash([3,2]);cx.strokeRect(a+0.5,y+1.5,Math.max(d-1,0.5),LANE-3);cx.setLineDash([]);}\n",
    "   else if(s[0]==3){cx.fillStyle='#c9c9c9';cx.fillRect(a,y+LANE/2-2,d,4);}\n",
    "   else if(s[0]==4){cx.fillStyle='#6b6b9a';cx.fillRect(a,y+3,d,LANE-6);\n",
    "    if(d>30){cx.fillStyle='#fff';cx.fillText('sleep',a+2,y+11);}}});});\n",
    " cx.strokeStyle='rgba(200,0,0,0.55)';cx.fillStyle='#c00';\n",
    " D.workers.forEach(function(wk,i){wk.spans.forEach(function(s){if(s[0]!=1||s[4]!=1)return;\n",
    "  var x=X(s[1]);if(x<LABEL||x>w)return;var y=rows[i].y+s[6]*LANE,v=rows[s[5]];\n",
    "  if(v){cx.beginPath();cx.moveTo(x,v.y+LANE/2);cx.lineTo(x,y+LANE/2);cx.stroke();}\n",
    "  cx.beginPath();cx.moveTo(x-4,y+LANE);cx.lineTo(x+4,y+LANE);cx.lineTo(x,y+LANE-7);cx.fill();});});}\n",
    "function at(mx,my){for(var i=0;i<rows.length;i++){var row=rows[i];if(my<row.y||my>=row.y+row.h)continue;\n",
    " var lane=Math.floor((my-row.y)/LANE),t=t0+(mx-LABEL)/(wid()-LABEL)*(t1-t0),best=null;\n",
    " D.workers[i].spans.forEach(function(s){if(s[6]==lane&&s[1]<=t&&t<=s[1]+s[2])best=s;});return best?{s:best,w:i}:null;}return null;}\n",
    "var FROM=['own deque','stolen from worker ','injector','broadcast','run at its spawn (no memory)'];\n",
    "var drag=null;\n",
    "cv.addEventListener('mousedown',function(e){drag={x:e.offsetX,t0:t0,t1:t1};});\n",
    "window.addEventListener('mouseup',function(){drag=null;});\n",
    "cv.addEventListener('mousemove',function(e){if(drag){var dt=(e.offsetX-drag.x)/(wid()-LABEL)*(drag.t1-drag.t0);\n",
    "  t0=drag.t0-dt;t1=drag.t1-dt;draw();return;}\n",
    " var h=at(e.offsetX,e.offsetY);if(!h){tip.style.display='none';return;}var s=h.s;\n",
    " var txt=label(s)+'\\n'+D.workers[h.w].name+', '+KIND[s[0]]+(s[0]==1?', from '+FROM[s[4]]+(s[4]==1?s[5]:''):'')+\n",
    "  (s[7]?', dropped: its scope was cancelled':'')+\n",
    "  '\\nstart '+fmt(s[1])+', '+fmt(s[2]);\n",
    " tip.textContent=txt;tip.style.display='block';tip.style.left=(e.offsetX+14)+'px';tip.style.top=(e.offsetY+14)+'px';});\n",
    "cv.addEventListener('mouseleave',function(){tip.style.display='none';});\n",
    "cv.addEventListener('wheel',function(e){e.preventDefault();var t=t0+(e.offsetX-LABEL)/(wid()-LABEL)*(t1-t0);\n",
    " var f=e.deltaY<0?0.8:1.25;if((t1-t0)*f<0.01)return;t0=t-(t-t0)*f;t1=t+(t1-t)*f;draw();},{passive:false});\n",
    "cv.addEventListener('dblclick',function(){t0=0;t1=T;draw();});\n",
    "window.addEventListener('resize',draw);draw();\n",
    "})();\n",
    "</script>\n",
    NULL};

static void put_percent(FILE *f, double part, double whole)
{
    fprintf(f, "<td>%.1f%%</td>", whole > 0 ? 100.0 * part / whole : 0.0);
}

int spool__trace_write_html(const spool__snapshot_t *snap, const char *path)
{
    int err;
    FILE *f = open_for_write(path, &err);
    if (f == NULL)
        return err;
    fputs(html_head, f);
    unsigned long long lost = 0;
    for (unsigned i = 0; i < snap->num_workers; i++)
        lost += snap->workers[i].lost;
    fprintf(f, "<h1>spool timeline</h1>\n<div>%u workers, %.3f ms (clock: %s), spool %s.",
            snap->num_workers, snap->duration_ns / 1e6, snap->clock, SPOOL__VERSION_STRING);
    if (lost > 0)
        fprintf(f, " <b>%llu older records were dropped</b> (full rings: a larger "
                   "SPOOL_TRACE_RECORDS or records_per_worker keeps them).", lost);
    fputs(" Wheel: zoom; drag: pan; double-click: whole trace; hover: details.</div>\n"
          "<div class=\"key\"><i style=\"background:hsl(40,62%,62%)\"></i>job (colour per function)"
          "<i style=\"border:1px dashed #444;height:8px\"></i>wait for a stolen half"
          "<i style=\"background:#c9c9c9;height:4px\"></i>search"
          "<i style=\"background:#6b6b9a\"></i>sleep"
          "<i style=\"background:#c00;width:8px\"></i>steal (line from the victim)</div>\n"
          "<div id=\"wrap\"><canvas id=\"timeline\"></canvas><div id=\"tip\"></div></div>\n",
          f);
    fputs("<table><tr><th>worker</th><th>busy</th><th>searching</th><th>sleeping</th>"
          "<th>jobs</th><th>steals</th><th>wake-ups</th><th>records lost</th></tr>\n",
          f);
    for (unsigned i = 0; i < snap->num_workers; i++) {
        const spool__worker_snapshot_t *w = &snap->workers[i];
        summary_t s = summarise(w);
        fputs("<tr><td>", f);
        for (const char *c = w->name; *c != '\0'; c++)
            if (*c == '<' || *c == '&' || *c == '>')
                fprintf(f, "&#%d;", *c);
            else
                fputc(*c, f);
        fputs("</td>", f);
        put_percent(f, s.busy_ns, snap->duration_ns);
        put_percent(f, s.search_ns, snap->duration_ns);
        put_percent(f, s.sleep_ns, snap->duration_ns);
        fprintf(f, "<td>%llu</td><td>%llu</td><td>%llu</td><td>%llu</td></tr>\n", s.jobs, s.steals,
                s.wakeups, (unsigned long long)w->lost);
    }
    fputs("</table>\n<p>busy: running jobs (less time spent searching inside them, waiting for "
          "a stolen half); searching: looking for work without sleeping.</p>\n",
          f);
    /* The data, as JSON in a script element: spans are
     * [kind, start us, duration us, name index, from, victim, depth,
     * dropped]. */
    fputs("<script type=\"application/json\" id=\"trace-data\">\n{\"names\":[", f);
    for (size_t k = 0; k < snap->num_names; k++) {
        if (k > 0)
            fputc(',', f);
        put_string(f, snap->names[k].name);
    }
    fprintf(f, "],\"duration_us\":%.3f,\"workers\":[", snap->duration_ns / 1000.0);
    for (unsigned i = 0; i < snap->num_workers; i++) {
        const spool__worker_snapshot_t *w = &snap->workers[i];
        fputs(i > 0 ? ",\n{\"name\":" : "\n{\"name\":", f);
        put_string(f, w->name);
        fprintf(f, ",\"lost\":%llu,\"spans\":[", (unsigned long long)w->lost);
        for (size_t k = 0; k < w->count; k++) {
            const spool__span_t *s = &w->spans[k];
            unsigned kind = spool__span_kind(s);
            long name = kind == SPOOL__TRACE_JOB || (kind == SPOOL__TRACE_WAIT && s->fn != 0)
                            ? (long)spool__snapshot_name_index(snap, s->fn)
                            : -1;
            double dur = (s->end_ns - s->start_ns) / 1000.0;
            fprintf(f, "%s[%u,%.3f,%.3f,%ld,%u,%u,%u,%u]", k > 0 ? "," : "", kind,
                    s->start_ns / 1000.0, dur < 0 ? 0.0 : dur, name, spool__span_from(s),
                    spool__span_victim(s), spool__span_depth(s), spool__span_dropped(s));
        }
        fputs("]}", f);
    }
    fputs("]}\n</script>\n", f);
    for (const char *const *line = html_script; *line != NULL; line++)
        fputs(*line, f);
    fputs("</body></html>\n", f);
    return close_written(f);
}

#endif
