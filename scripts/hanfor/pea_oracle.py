#!/usr/bin/env python3
"""Extracts the phase event automata that Hanfor's documentation draws for each pattern
(documentation/docs/img/patterns/*.svg, with the countertraces of
documentation/includes/patterns/*.md) into one text table: the reference the tests of
vera's countertrace compiler compare against (crates/reqs/tests/data/hanfor-peas.txt).

usage: pea_oracle.py SVG_DIR MD_DIR > hanfor-peas.txt
"""
import html
import os
import re
import sys
import xml.etree.ElementTree as ET

NS = "{http://www.w3.org/2000/svg}"


def texts(g):
    out = []
    for t in g.iter(NS + "text"):
        out.append((t.get("fill"), t.get("font-weight"), html.unescape("".join(t.itertext()))))
    return out


def short(name):
    # ID_44_ct0_st012W -> st012W ; ..._stinit -> stinit
    m = re.search(r"_ct\d+_(st.*)$", name)
    return m.group(1) if m else name


def countertraces(md_dir):
    cts = {}
    for f in sorted(os.listdir(md_dir)):
        if not f.endswith(".md"):
            continue
        pat = f[:-3]
        text = open(os.path.join(md_dir, f), encoding="utf-8").read()
        for m in re.finditer(r"### (\w+) (\w+)\n.*?#### Countertraces\n```\n(.*?)```", text, re.S):
            cts[(m.group(1), m.group(2))] = [l for l in m.group(3).splitlines() if l.strip()]
    return cts


def main():
    svg_dir, md_dir = sys.argv[1], sys.argv[2]
    cts = countertraces(md_dir)
    for f in sorted(os.listdir(svg_dir)):
        m = re.match(r"(\w+)Pattern_(\w+)_(\d+)\.svg$", f)
        if not m:
            continue
        pat, scope, idx = m.group(1), m.group(2), int(m.group(3))
        root = ET.parse(os.path.join(svg_dir, f)).getroot()
        print(f"== {pat} {scope} {idx}")
        ct = cts.get((pat, scope), [])
        if idx < len(ct):
            print(f"ct {ct[idx]}")
        locs, edges, init = [], [], []
        for g in root.iter(NS + "g"):
            cls = g.get("class")
            title = g.find(NS + "title")
            if title is None:
                continue
            t = html.unescape(title.text or "")
            if cls == "node":
                tx = texts(g)
                name = short(tx[0][2])
                inv = next((x[2] for x in tx if x[0] == "#984ea3"), "true")
                clk = next((x[2] for x in tx if x[0] == "#ff7f00"), "true")
                locs.append((name, inv, clk))
            elif cls == "edge":
                a, b = t.split("->")
                if a.startswith("_"):
                    init.append(short(b))
                    continue
                tx = texts(g)
                guard = next((x[2] for x in tx if x[0] == "#377eb8"), "true")
                resets = [x[2].split(":=")[0].strip() for x in tx if x[0] is None and ":=" in x[2]]
                edges.append((short(a), short(b), guard, ",".join(resets)))
        for name, inv, clk in locs:
            mark = " init" if name in init else ""
            print(f"loc {name} | {inv} | {clk}{mark}")
        for a, b, guard, resets in edges:
            print(f"edge {a} -> {b} | {guard} | {resets}")


if __name__ == "__main__":
    main()
