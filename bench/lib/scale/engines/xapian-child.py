"""One Xapian measurement for bench/scale.mjs, in a process of its own.

    /usr/bin/python3 xapian-child.py build <spec.json>   indexes the passages
    /usr/bin/python3 xapian-child.py serve <spec.json>   reopens, then times queries per depth

The analysis is irserve's BM25 default: lower-cased words, Lucene's 33 English stop words left
out, the original Porter stemmer, only stems indexed; BM25 with k1 0.9 and b 0.4 (irserve's
defaults), queries OR-ed. spec: { corpus, dir, queries, ks }. Prints one JSON line.
"""
import json
import os
import sys
import time

import xapian

STOPWORDS = (
    "the a and of to in is that it for was on are as with be by this at not or but "
    "if no an into such their then there these they will"
).split()


def analysis():
    stemmer = xapian.Stem("porter")
    stopper = xapian.SimpleStopper()
    for word in STOPWORDS:
        stopper.add(word)
    return stemmer, stopper


def build(spec):
    stemmer, stopper = analysis()
    db = xapian.WritableDatabase(os.path.join(spec["dir"], "xapian"), xapian.DB_CREATE_OR_OVERWRITE)
    generator = xapian.TermGenerator()
    generator.set_stemmer(stemmer)
    generator.set_stemming_strategy(xapian.TermGenerator.STEM_ALL)
    generator.set_stopper(stopper)
    generator.set_stopper_strategy(xapian.TermGenerator.STOP_ALL)
    started = time.perf_counter()
    with open(spec["corpus"], encoding="utf-8") as lines:
        for line in lines:
            passage = json.loads(line)
            document = xapian.Document()
            generator.set_document(document)
            generator.index_text_without_positions(passage["text"])
            document.set_data(passage["id"])
            db.add_document(document)
    db.commit()
    db.close()
    return {"seconds": time.perf_counter() - started}


def resident_bytes():
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


def percentile(sorted_ms, p):
    return sorted_ms[min(len(sorted_ms) - 1, int(p * len(sorted_ms)))]


def serve(spec):
    started = time.perf_counter()
    db = xapian.Database(os.path.join(spec["dir"], "xapian"))
    stemmer, stopper = analysis()
    parser = xapian.QueryParser()
    parser.set_stemmer(stemmer)
    parser.set_stemming_strategy(xapian.QueryParser.STEM_ALL)
    parser.set_stopper(stopper)
    parser.set_default_op(xapian.Query.OP_OR)
    enquire = xapian.Enquire(db)
    enquire.set_weighting_scheme(xapian.BM25Weight(0.9, 0, 1, 0.4, 0.5))
    start_seconds = time.perf_counter() - started
    with open(spec["queries"], encoding="utf-8") as f:
        queries = json.load(f)

    def search(text, k):
        enquire.set_query(parser.parse_query(text))
        return [match.document.get_data() for match in enquire.get_mset(0, k)]

    top = {}
    for k in spec["ks"]:
        for text in queries[:50]:
            search(text, k)
        ms = []
        begun = time.perf_counter()
        for text in queries:
            t = time.perf_counter()
            search(text, k)
            ms.append((time.perf_counter() - t) * 1000)
        seconds = time.perf_counter() - begun
        ms.sort()
        top[k] = {"p50Ms": percentile(ms, 0.5), "p99Ms": percentile(ms, 0.99), "qps": len(queries) / seconds}
    return {"startSeconds": start_seconds, "residentBytes": resident_bytes(), "top": top}


if __name__ == "__main__":
    command, spec_path = sys.argv[1:3]
    with open(spec_path, encoding="utf-8") as f:
        spec = json.load(f)
    print(json.dumps(build(spec) if command == "build" else serve(spec)))
