// LuceneBench builds a Lucene index of the passages Crucible exports and
// times the benchmark queries against it, for `crucible bench
// search|index --peers lucene`. See bench/README.md.
//
// Input: JSON Lines files of {"id": ..., "text": ...} objects (passages,
// queries) and a stop-word file (one word a line). Output: one JSON object
// with the build and search figures and the top-k passage ids per query.
//
// Analysis follows Crucible's (Bleve's English analyzer): a Unicode word
// tokenizer, the English possessive filter, lower case, the stop words
// given, the Porter stemmer (Lucene's EnglishAnalyzer with that stop set).
// Only documents and frequencies are indexed (Crucible keeps no
// positions); scoring is BM25Similarity(k1, b).
//
// Written for Lucene 8.x (Debian's liblucene8-java); no dependency beyond
// lucene-core and lucene-analyzers-common.

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.CharArraySet;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.en.EnglishAnalyzer;
import org.apache.lucene.analysis.tokenattributes.CharTermAttribute;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.FieldType;
import org.apache.lucene.document.StringField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexOptions;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.search.similarities.BM25Similarity;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.util.Version;

public class LuceneBench {
    static final String ID = "id";
    static final String BODY = "body";

    public static void main(String[] argv) throws Exception {
        Map<String, String> opt = parseArgs(argv);
        Path passages = Paths.get(need(opt, "passages"));
        Path indexDir = Paths.get(need(opt, "index"));
        Path out = Paths.get(need(opt, "out"));
        int k = Integer.parseInt(opt.getOrDefault("k", "10"));
        int passes = Integer.parseInt(opt.getOrDefault("passes", "5"));
        int warmup = Math.max(1, Integer.parseInt(opt.getOrDefault("warmup", "1")));
        float k1 = Float.parseFloat(opt.getOrDefault("k1", "0.9"));
        float b = Float.parseFloat(opt.getOrDefault("b", "0.4"));
        List<String> stop = opt.containsKey("stopwords")
                ? Files.readAllLines(Paths.get(opt.get("stopwords")), StandardCharsets.UTF_8)
                : Collections.emptyList();
        List<String[]> queries = opt.containsKey("queries") && passes > 0
                ? readRecords(Paths.get(opt.get("queries")))
                : new ArrayList<>();

        CharArraySet stopSet = new CharArraySet(stop.size(), false);
        for (String w : stop) {
            if (!w.isBlank()) stopSet.add(w.trim());
        }
        Analyzer analyzer = new EnglishAnalyzer(stopSet);
        BM25Similarity similarity = new BM25Similarity(k1, b);

        // Build: read, analyse, index, commit and close.
        long buildCpu0 = processCpuNanos();
        long build0 = System.nanoTime();
        int count = 0;
        FieldType bodyType = new FieldType();
        bodyType.setIndexOptions(IndexOptions.DOCS_AND_FREQS);
        bodyType.setTokenized(true);
        bodyType.setStored(false);
        bodyType.freeze();
        try (Directory dir = FSDirectory.open(indexDir)) {
            IndexWriterConfig cfg = new IndexWriterConfig(analyzer);
            cfg.setOpenMode(IndexWriterConfig.OpenMode.CREATE);
            cfg.setSimilarity(similarity);
            try (IndexWriter w = new IndexWriter(dir, cfg);
                 BufferedReader r = Files.newBufferedReader(passages, StandardCharsets.UTF_8)) {
                String line;
                while ((line = r.readLine()) != null) {
                    if (line.isBlank()) continue;
                    Map<String, String> rec = MiniJson.object(line);
                    Document d = new Document();
                    d.add(new StringField(ID, rec.get("id"), Field.Store.YES));
                    d.add(new Field(BODY, rec.get("text"), bodyType));
                    w.addDocument(d);
                    count++;
                }
                w.commit();
            }
        }
        double buildSeconds = (System.nanoTime() - build0) / 1e9;
        double buildCpuSeconds = (processCpuNanos() - buildCpu0) / 1e9;
        long buildPeak = peakRssBytes();

        Map<String, Object> res = new LinkedHashMap<>();
        res.put("engine", "lucene");
        res.put("version", Version.LATEST.toString());
        res.put("passages", count);
        res.put("build_seconds", buildSeconds);
        res.put("build_cpu_seconds", buildCpuSeconds);
        res.put("build_peak_rss_bytes", buildPeak);

        if (passes > 0 && !queries.isEmpty()) {
            try (Directory dir = FSDirectory.open(indexDir);
                 DirectoryReader reader = DirectoryReader.open(dir)) {
                IndexSearcher searcher = new IndexSearcher(reader);
                searcher.setSimilarity(similarity);
                Set<String> idOnly = Collections.singleton(ID);
                List<List<String>> top = new ArrayList<>();
                // Warm-up: every query warmup times; the first pass's hits
                // are the ones reported.
                for (int w = 0; w < warmup; w++) {
                    for (String[] q : queries) {
                        List<String> ids = search(searcher, analyzer, q[1], k, idOnly);
                        if (w == 0) top.add(ids);
                    }
                }
                double[] ms = new double[queries.size() * passes];
                int n = 0;
                long cpu0 = processCpuNanos();
                long wall0 = System.nanoTime();
                for (int p = 0; p < passes; p++) {
                    for (String[] q : queries) {
                        long t0 = System.nanoTime();
                        search(searcher, analyzer, q[1], k, idOnly);
                        ms[n++] = (System.nanoTime() - t0) / 1e6;
                    }
                }
                double wall = (System.nanoTime() - wall0) / 1e9;
                double cpu = (processCpuNanos() - cpu0) / 1e9;
                Arrays.sort(ms);
                res.put("queries", queries.size());
                res.put("passes", passes);
                res.put("warmup", warmup);
                res.put("k", k);
                res.put("p50_ms", percentile(ms, 0.50));
                res.put("p99_ms", percentile(ms, 0.99));
                res.put("cpu_ms_per_query", cpu * 1000 / n);
                res.put("qps", n / wall);
                List<Object> results = new ArrayList<>();
                for (int i = 0; i < queries.size(); i++) {
                    Map<String, Object> one = new LinkedHashMap<>();
                    one.put("id", queries.get(i)[0]);
                    one.put("hits", top.get(i));
                    results.add(one);
                }
                res.put("results", results);
            }
        }
        res.put("peak_rss_bytes", peakRssBytes());
        try (BufferedWriter w = Files.newBufferedWriter(out, StandardCharsets.UTF_8)) {
            w.write(MiniJson.write(res));
            w.write('\n');
        }
    }

    // search analyses the query as the passages were analysed, ORs its
    // terms (a repeated term counts again, as in Crucible) and returns the
    // ids of the top k passages.
    static List<String> search(IndexSearcher s, Analyzer a, String text, int k, Set<String> fields) throws IOException {
        BooleanQuery.Builder bq = new BooleanQuery.Builder();
        int terms = 0;
        try (TokenStream ts = a.tokenStream(BODY, text)) {
            CharTermAttribute term = ts.addAttribute(CharTermAttribute.class);
            ts.reset();
            while (ts.incrementToken()) {
                bq.add(new TermQuery(new Term(BODY, term.toString())), BooleanClause.Occur.SHOULD);
                terms++;
            }
            ts.end();
        }
        List<String> ids = new ArrayList<>();
        if (terms == 0) return ids;
        Query q = bq.build();
        TopDocs td = s.search(q, k);
        for (ScoreDoc sd : td.scoreDocs) {
            ids.add(s.doc(sd.doc, fields).get(ID));
        }
        return ids;
    }

    // percentile is the nearest-rank percentile of sorted values, the rule
    // the Go side uses.
    static double percentile(double[] sorted, double p) {
        if (sorted.length == 0) return 0;
        int i = (int) (p * sorted.length + 0.5) - 1;
        i = Math.max(0, Math.min(i, sorted.length - 1));
        return sorted[i];
    }

    static long processCpuNanos() {
        java.lang.management.OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        if (os instanceof com.sun.management.OperatingSystemMXBean) {
            return ((com.sun.management.OperatingSystemMXBean) os).getProcessCpuTime();
        }
        return ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
    }

    // peakRssBytes reads the process's peak resident set (VmHWM) from
    // /proc; 0 where there is no /proc.
    static long peakRssBytes() {
        try {
            for (String l : Files.readAllLines(Paths.get("/proc/self/status"))) {
                if (l.startsWith("VmHWM:")) {
                    String[] f = l.substring(6).trim().split("\\s+");
                    return Long.parseLong(f[0]) * 1024;
                }
            }
        } catch (IOException | NumberFormatException e) {
            // fall through
        }
        return 0;
    }

    static List<String[]> readRecords(Path p) throws IOException {
        List<String[]> out = new ArrayList<>();
        for (String line : Files.readAllLines(p, StandardCharsets.UTF_8)) {
            if (line.isBlank()) continue;
            Map<String, String> rec = MiniJson.object(line);
            out.add(new String[] {rec.get("id"), rec.get("text")});
        }
        return out;
    }

    static Map<String, String> parseArgs(String[] argv) {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < argv.length; i++) {
            String a = argv[i];
            if (!a.startsWith("--") || i + 1 >= argv.length) {
                usage("bad argument " + a);
            }
            m.put(a.substring(2), argv[++i]);
        }
        return m;
    }

    static String need(Map<String, String> opt, String name) {
        String v = opt.get(name);
        if (v == null) usage("--" + name + " is required");
        return v;
    }

    static void usage(String why) {
        System.err.println("LuceneBench: " + why);
        System.err.println("usage: java -cp LUCENE_JARS LuceneBench.java --passages P.jsonl --index DIR --out OUT.json"
                + " [--queries Q.jsonl] [--stopwords FILE] [--k 10] [--passes 5] [--warmup 1] [--k1 0.9] [--b 0.4]");
        System.exit(2);
    }
}

// MiniJson reads the flat objects of string values the benchmark exports
// and writes the result object (strings, numbers, lists and maps).
final class MiniJson {
    static Map<String, String> object(String s) {
        Map<String, String> m = new LinkedHashMap<>();
        int[] pos = {skip(s, 0)};
        expect(s, pos, '{');
        pos[0] = skip(s, pos[0]);
        if (s.charAt(pos[0]) == '}') return m;
        while (true) {
            pos[0] = skip(s, pos[0]);
            String key = string(s, pos);
            pos[0] = skip(s, pos[0]);
            expect(s, pos, ':');
            pos[0] = skip(s, pos[0]);
            String val = s.charAt(pos[0]) == '"' ? string(s, pos) : scalar(s, pos);
            m.put(key, val);
            pos[0] = skip(s, pos[0]);
            char c = s.charAt(pos[0]++);
            if (c == '}') return m;
            if (c != ',') throw new IllegalArgumentException("JSON: want , or } at " + (pos[0] - 1));
        }
    }

    private static int skip(String s, int i) {
        while (i < s.length() && Character.isWhitespace(s.charAt(i))) i++;
        return i;
    }

    private static void expect(String s, int[] pos, char c) {
        if (pos[0] >= s.length() || s.charAt(pos[0]) != c) {
            throw new IllegalArgumentException("JSON: want " + c + " at " + pos[0]);
        }
        pos[0]++;
    }

    private static String scalar(String s, int[] pos) {
        int start = pos[0];
        while (pos[0] < s.length() && ",}".indexOf(s.charAt(pos[0])) < 0) pos[0]++;
        return s.substring(start, pos[0]).trim();
    }

    private static String string(String s, int[] pos) {
        expect(s, pos, '"');
        StringBuilder sb = new StringBuilder();
        while (true) {
            char c = s.charAt(pos[0]++);
            if (c == '"') return sb.toString();
            if (c != '\\') {
                sb.append(c);
                continue;
            }
            char e = s.charAt(pos[0]++);
            switch (e) {
                case '"': case '\\': case '/': sb.append(e); break;
                case 'b': sb.append('\b'); break;
                case 'f': sb.append('\f'); break;
                case 'n': sb.append('\n'); break;
                case 'r': sb.append('\r'); break;
                case 't': sb.append('\t'); break;
                case 'u':
                    sb.append((char) Integer.parseInt(s.substring(pos[0], pos[0] + 4), 16));
                    pos[0] += 4;
                    break;
                default: throw new IllegalArgumentException("JSON: bad escape \\" + e);
            }
        }
    }

    static String write(Object v) {
        StringBuilder sb = new StringBuilder();
        write(sb, v);
        return sb.toString();
    }

    @SuppressWarnings("unchecked")
    private static void write(StringBuilder sb, Object v) {
        if (v == null) {
            sb.append("null");
        } else if (v instanceof String) {
            quote(sb, (String) v);
        } else if (v instanceof Double || v instanceof Float) {
            double d = ((Number) v).doubleValue();
            sb.append(Double.isFinite(d) ? Double.toString(d) : "0");
        } else if (v instanceof Number) {
            sb.append(v.toString());
        } else if (v instanceof Map) {
            sb.append('{');
            boolean first = true;
            for (Map.Entry<String, Object> e : ((Map<String, Object>) v).entrySet()) {
                if (!first) sb.append(',');
                first = false;
                quote(sb, e.getKey());
                sb.append(':');
                write(sb, e.getValue());
            }
            sb.append('}');
        } else if (v instanceof List) {
            sb.append('[');
            boolean first = true;
            for (Object o : (List<Object>) v) {
                if (!first) sb.append(',');
                first = false;
                write(sb, o);
            }
            sb.append(']');
        } else {
            quote(sb, v.toString());
        }
    }

    private static void quote(StringBuilder sb, String s) {
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"': sb.append("\\\""); break;
                case '\\': sb.append("\\\\"); break;
                case '\n': sb.append("\\n"); break;
                case '\r': sb.append("\\r"); break;
                case '\t': sb.append("\\t"); break;
                default:
                    if (c < 0x20) sb.append(String.format("\\u%04x", (int) c));
                    else sb.append(c);
            }
        }
        sb.append('"');
    }
}
