// SPDX-License-Identifier: Apache-2.0
//
// Produces tests/testdata/reference/arx-local-recoding.json and the released tables
// tests/testdata/reference/local-recoding/NAME.csv: ARX 3.9.2's local recoding (ARXResult.optimize,
// optimizeIterative, optimizeIterativeFast) on examples/adult with examples/adult/hierarchies, after the
// global optimum (optimal search, ARX's Loss with the geometric mean, classification accuracy for the runs
// named *_cls_*, or for the runs named *_q_MODEL the factory default of that quality model: precision, height,
// discernability (and its monotonic variant), AECS, normalized entropy, ambiguity, KL divergence,
// non-uniform entropy or the publisher's payout with ARX's default costs and benefits, gs-factor 0.5). Each
// run: the privacy model, the
// suppression limit, the mode and its settings; ARX's steps (the global optimum, then every pass that found
// one: its transformation, records recoded and information loss), the suppressed records before and after,
// and the SHA-256 of the released table as ARX's DataHandle.save writes it (';'). Prints one JSON document.
//
// The runs named *_micro_age_FUNCTION[_generalized] microaggregate age (an INTEGER column) with that function,
// generalized before aggregation (ARX's clustering: age keeps its hierarchy) or not (age a quasi-identifier
// without hierarchy, outside the lattice).
//
// The runs named adult_subset_* have a research subset: every tenth record of adult from the fourth (record i
// with i % 10 == 3, written to OUT_DIR/adult-subset.csv; ARX's DataSubset.create(data, subset) with the
// Inclusion criterion, as bench/arx/ArxRun.java --subset). ARX's passes take the outliers within the subset
// (ARXResult.optimizeFast: baselineRowSet); their suppressed_before and suppressed_after count the subset's
// records, suppressed_outside the records outside it (ARX's outliers too, never recoded).
//
//   javac -nowarn -cp ARX_JAR -d /tmp/arxlr bench/arx/ArxLocalRecoding.java
//   java -cp ARX_JAR:/tmp/arxlr ArxLocalRecoding examples/adult ../shared/data/cup OUT_DIR \
//       > tests/testdata/reference/arx-local-recoding.json
//
// (cup: the project's shared data folder beside the repository, every column quasi-identifying.)
//
// Not part of deid.

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import org.deidentifier.arx.ARXAnonymizer;
import org.deidentifier.arx.ARXConfiguration;
import org.deidentifier.arx.ARXProcessStatistics;
import org.deidentifier.arx.ARXResult;
import org.deidentifier.arx.AttributeType;
import org.deidentifier.arx.AttributeType.Hierarchy;
import org.deidentifier.arx.Data;
import org.deidentifier.arx.DataHandle;
import org.deidentifier.arx.DataSubset;
import org.deidentifier.arx.DataType;
import org.deidentifier.arx.criteria.DistinctLDiversity;
import org.deidentifier.arx.criteria.EqualDistanceTCloseness;
import org.deidentifier.arx.criteria.Inclusion;
import org.deidentifier.arx.criteria.KAnonymity;
import org.deidentifier.arx.criteria.RecursiveCLDiversity;
import org.deidentifier.arx.metric.Metric;

public class ArxLocalRecoding {

    static final String[] ALL = {"sex", "age", "race", "marital-status", "education", "native-country", "workclass",
                                 "occupation", "salary-class"};
    static final String[] CUP = {"ZIP", "AGE", "GENDER", "INCOME", "STATE", "RAMNTALL", "NGIFTALL", "MINRAMNT"};
    static final String SENSITIVE = "occupation";

    /** One run. model: "k" (k-anonymity), "distinct-l", "recursive-cl", "t-equal". */
    static final class Run {
        String dataset = "adult";
        boolean subset;  // the research subset of every tenth record from the fourth
        String name;
        String model;
        int k;
        double l;
        double c;
        double t;
        double suppression;
        String mode;  // single | fast | iterative
        double gsFactor;
        int maxIterations;
        double adaptionFactor;
        double records;
        String response;         // classification's response variable (null: Loss)
        String quality;          // another quality model (deid's name; null: Loss or classification)
        String micro;            // age microaggregated with this function (null: generalized only)
        boolean microGeneralized;  // age generalized before (ARX's clustering) or not
        boolean responseQi = true;  // false: salary-class insensitive, not a quasi-identifier
    }

    /** `r` with the classification metric (gs-factor 0.5 globally) and `response`. */
    static Run classification(Run r, String response, boolean qi) {
        r.response = response;
        r.responseQi = qi;
        return r;
    }

    /** `r` with quality model `quality` (deid's name; ARX's factory default, gs-factor 0.5 globally). */
    static Run quality(Run r, String quality) {
        r.quality = quality;
        return r;
    }

    /** `r` with age microaggregated by `function`, generalized before or not. */
    static Run micro(Run r, String function, boolean generalized) {
        r.micro = function;
        r.microGeneralized = generalized;
        return r;
    }

    static Run run(String model, int k, double suppression, String mode, double gs) {
        Run r = new Run();
        r.model = model;
        r.k = k;
        r.suppression = suppression;
        r.mode = mode;
        r.gsFactor = gs;
        r.maxIterations = 100;
        r.adaptionFactor = 0.05;
        r.records = 0.01;
        return r;
    }

    static Run withRecords(Run r, double records) {
        r.records = records;
        return r;
    }

    static Run withL(Run r, double l) {
        r.l = l;
        return r;
    }

    static Run withT(Run r, double t) {
        r.t = t;
        return r;
    }

    static List<Run> runs() {
        List<Run> out = new ArrayList<>();
        for (int k : new int[] {2, 5, 10}) {
            for (double gs : new double[] {0.0, 0.5, 1.0}) {
                out.add(run("k", k, 0.05, "single", gs));
            }
            out.add(run("k", k, 0.05, "iterative", 0.5));
        }
        out.add(run("k", 5, 0.05, "iterative", 0.05));
        out.add(run("k", 5, 0.2, "iterative", 0.5));
        Run noAdapt = run("k", 5, 0.05, "iterative", 0.5);
        noAdapt.adaptionFactor = 0.0;
        noAdapt.maxIterations = 3;
        out.add(noAdapt);
        out.add(run("k", 5, 0.05, "fast", 0.5));
        out.add(withRecords(run("k", 10, 0.05, "fast", 0.0), 0.002));
        out.add(withL(run("distinct-l", 0, 0.05, "iterative", 0.5), 3));
        Run cl = withL(run("recursive-cl", 0, 0.05, "single", 0.5), 3);
        cl.c = 4;
        out.add(cl);
        out.add(withT(run("t-equal", 0, 0.05, "iterative", 0.5), 0.2));
        out.add(withT(run("t-equal", 0, 0.05, "single", 1.0), 0.15));
        // cup: every column quasi-identifying.
        Run[] cup = {run("k", 5, 0.05, "iterative", 0.5), run("k", 10, 0.05, "single", 0.5), run("k", 5, 0.05, "single", 0.0)};
        for (Run c : cup) {
            c.dataset = "cup";
            out.add(c);
        }
        // adult with the research subset.
        List<Run> subset = new ArrayList<>();
        subset.add(run("k", 2, 0.05, "single", 0.5));
        subset.add(run("k", 5, 0.05, "single", 0.5));
        subset.add(run("k", 5, 0.05, "single", 0.0));
        subset.add(run("k", 10, 0.05, "single", 1.0));
        subset.add(run("k", 5, 0.05, "iterative", 0.5));
        subset.add(run("k", 10, 0.05, "iterative", 0.05));
        subset.add(run("k", 5, 0.2, "iterative", 0.5));
        subset.add(run("k", 5, 0.05, "fast", 0.5));
        subset.add(withRecords(run("k", 10, 0.05, "fast", 0.0), 0.005));
        subset.add(withL(run("distinct-l", 0, 0.05, "iterative", 0.5), 3));
        subset.add(withT(run("t-equal", 0, 0.05, "iterative", 0.5), 0.2));
        subset.add(withT(run("t-equal", 0, 0.05, "single", 0.0), 0.3));
        for (Run r : subset) {
            r.subset = true;
            out.add(r);
        }
        // adult, classification accuracy: salary-class a quasi-identifier and the response variable (ARX's
        // MetaHashGroupify), or insensitive (the classes' own distributions); education as response.
        out.add(classification(run("k", 5, 0.05, "single", 0.5), "salary-class", true));
        out.add(classification(run("k", 5, 0.05, "single", 1.0), "salary-class", true));
        out.add(classification(run("k", 5, 0.05, "iterative", 0.5), "education", true));
        out.add(classification(run("k", 5, 0.05, "single", 0.5), "salary-class", false));
        out.add(classification(run("k", 5, 0.05, "single", 0.0), "salary-class", false));
        out.add(classification(run("k", 5, 0.05, "single", 1.0), "salary-class", false));
        out.add(classification(run("k", 10, 0.05, "iterative", 0.0), "salary-class", false));
        out.add(classification(run("k", 5, 0.2, "single", 0.2), "salary-class", false));
        // adult, the other quality models ARX recodes locally under (every model; the gs-factor applies to
        // those that have one: precision and AECS of these).
        out.add(quality(run("k", 5, 0.05, "single", 0.5), "precision"));
        out.add(quality(run("k", 5, 0.05, "single", 0.0), "precision"));
        out.add(quality(run("k", 5, 0.05, "single", 1.0), "precision"));
        out.add(quality(run("k", 10, 0.05, "single", 0.2), "precision"));
        out.add(quality(run("k", 5, 0.05, "iterative", 0.05), "precision"));
        out.add(quality(run("k", 5, 0.05, "single", 0.5), "height"));
        out.add(quality(run("k", 5, 0.05, "iterative", 0.05), "height"));
        out.add(quality(run("k", 5, 0.05, "single", 0.5), "discernability"));
        out.add(quality(run("k", 10, 0.05, "iterative", 0.05), "discernability"));
        out.add(quality(run("k", 5, 0.05, "single", 0.5), "discernability-monotonic"));
        out.add(quality(run("k", 5, 0.05, "single", 0.5), "aecs"));
        out.add(quality(run("k", 5, 0.05, "single", 0.0), "aecs"));
        out.add(quality(run("k", 5, 0.05, "single", 1.0), "aecs"));
        out.add(quality(run("k", 10, 0.05, "single", 0.2), "aecs"));
        out.add(quality(run("k", 5, 0.05, "iterative", 0.05), "aecs"));
        out.add(quality(run("k", 5, 0.05, "single", 0.5), "normalized-entropy"));
        out.add(quality(run("k", 5, 0.05, "iterative", 0.05), "normalized-entropy"));
        out.add(quality(run("k", 5, 0.05, "single", 0.5), "ambiguity"));
        out.add(quality(run("k", 5, 0.05, "single", 0.5), "kl-divergence"));
        out.add(quality(run("k", 5, 0.05, "single", 0.5), "entropy"));
        out.add(quality(run("k", 5, 0.05, "single", 0.0), "entropy"));
        out.add(quality(run("k", 5, 0.05, "iterative", 0.05), "entropy"));
        out.add(quality(run("k", 5, 0.05, "single", 0.5), "publisher-payout"));
        out.add(quality(run("k", 5, 0.05, "single", 0.0), "publisher-payout"));
        out.add(quality(run("k", 5, 0.05, "single", 1.0), "publisher-payout"));
        out.add(quality(run("k", 10, 0.05, "single", 0.2), "publisher-payout"));
        out.add(quality(run("k", 5, 0.05, "iterative", 0.05), "publisher-payout"));
        // adult with age microaggregated (ARX's optimizeFast copies each pass's microaggregated values).
        out.add(micro(run("k", 5, 0.05, "single", 0.5), "mean", false));
        out.add(micro(run("k", 5, 0.05, "iterative", 0.05), "mean", false));
        out.add(micro(run("k", 10, 0.05, "single", 0.0), "median", false));
        out.add(micro(run("k", 5, 0.05, "single", 0.5), "interval", true));
        out.add(micro(run("k", 5, 0.05, "iterative", 0.5), "mean", true));
        out.add(quality(micro(run("k", 5, 0.05, "single", 0.2), "mean", false), "precision"));
        for (Run r : out) {
            String m;
            switch (r.model) {
            case "k": m = "k" + r.k; break;
            case "distinct-l": m = String.format(Locale.ROOT, "distinct_l%s", fmt(r.l)); break;
            case "recursive-cl": m = String.format(Locale.ROOT, "recursive_c%s_l%s", fmt(r.c), fmt(r.l)); break;
            default: m = String.format(Locale.ROOT, "t_equal_%s", fmt(r.t)); break;
            }
            String extra = "";
            if (r.mode.equals("iterative")) extra = "_it" + r.maxIterations + "_a" + fmt(r.adaptionFactor);
            if (r.mode.equals("fast")) extra = "_r" + fmt(r.records);
            if (r.response != null) extra += "_cls_" + r.response + (r.responseQi ? "" : "_insensitive");
            if (r.quality != null) extra += "_q_" + r.quality.replace('-', '_');
            if (r.micro != null) extra += "_micro_age_" + r.micro + (r.microGeneralized ? "_generalized" : "");
            r.name = String.format(Locale.ROOT, "%s_%s_s%s_%s_gs%s%s", r.dataset + (r.subset ? "_subset" : ""), m,
                                   fmt(r.suppression), r.mode,
                                   fmt(r.gsFactor), extra);
        }
        return out;
    }

    static AttributeType.MicroAggregationFunction microFunction(String name) {
        switch (name) {
        case "mean": return AttributeType.MicroAggregationFunction.createArithmeticMean();
        case "median": return AttributeType.MicroAggregationFunction.createMedian();
        case "interval": return AttributeType.MicroAggregationFunction.createInterval();
        default: throw new IllegalArgumentException(name);
        }
    }

    static String fmt(double v) {
        if (v == Math.rint(v)) return Long.toString((long) v);
        return Double.toString(v);
    }

    static String loss(Object score) {
        return Double.toString(Double.parseDouble(score.toString()));
    }

    /** The outliers among the rows of `subset` (null: all rows), or outside it when `outside`. */
    static int outliers(DataHandle h, DataSubset subset, boolean outside) {
        int n = 0;
        for (int row = 0; row < h.getNumRows(); row++) {
            boolean in = subset == null || subset.getSet().contains(row);
            n += h.isOutlier(row) && in != outside ? 1 : 0;
        }
        return n;
    }

    /** Every tenth record of `csv` from the fourth (record i with i % 10 == 3), with the header, into `out`. */
    static File writeSubset(String csv, File out) throws IOException {
        List<String> lines = Files.readAllLines(new File(csv).toPath(), StandardCharsets.UTF_8);
        List<String> kept = new ArrayList<>();
        kept.add(lines.get(0));
        for (int i = 1; i < lines.size(); i++) {
            if ((i - 1) % 10 == 3) kept.add(lines.get(i));
        }
        Files.write(out.toPath(), kept, StandardCharsets.UTF_8);
        return out;
    }

    static String sha256(File f) throws Exception {
        MessageDigest md = MessageDigest.getInstance("SHA-256");
        byte[] d = md.digest(Files.readAllBytes(f.toPath()));
        StringBuilder s = new StringBuilder();
        for (byte b : d) s.append(String.format("%02x", b));
        return s.toString();
    }

    // ARX 3.9.2's steps of local recoding have no header map (Step.getGeneralization throws): their levels
    // are in the order of the optimum's getQuasiIdentifyingAttributes().
    static String step(ARXProcessStatistics.Step s, String[] qis, String[] internal) {
        StringBuilder out = new StringBuilder("{\"transformation\": {");
        int[] levels = s.getTransformation();
        for (int i = 0; i < qis.length; i++) {
            int index = java.util.Arrays.asList(internal).indexOf(qis[i]);
            out.append(i == 0 ? "" : ", ").append('"').append(qis[i]).append("\": ").append(levels[index]);
        }
        out.append("}, \"information_loss\": ").append(loss(s.getScore()));
        if (s.isNumberOfRecordsTransformedAvailable()) {
            out.append(", \"recoded\": ").append(s.getNumberOfRecordsTransformed());
        }
        return out.append("}").toString();
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 3) {
            System.err.println("usage: ArxLocalRecoding ADULT_DIR CUP_DIR OUT_DIR");
            System.exit(2);
        }
        File outDir = new File(args[2]);
        outDir.mkdirs();
        List<String> entries = new ArrayList<>();
        for (Run r : runs()) {
            boolean adult = r.dataset.equals("adult");
            String dir = adult ? args[0] : args[1];
            String csvPath = dir + (adult ? "/adult.csv" : "/cup.csv");
            Data data = Data.create(csvPath, StandardCharsets.UTF_8, ';');
            DataSubset subset = null;
            if (r.subset) {
                File file = writeSubset(csvPath, new File(outDir, r.dataset + "-subset.csv"));
                subset = DataSubset.create(data, Data.create(file.getPath(), StandardCharsets.UTF_8, ';'));
            }
            List<String> qiList = new ArrayList<>();
            for (String q : adult ? ALL : CUP) {
                if (r.response != null && !r.responseQi && q.equals("salary-class")) {
                    data.getDefinition().setAttributeType(q, AttributeType.INSENSITIVE_ATTRIBUTE);
                    continue;
                }
                if (!r.model.equals("k") && q.equals(SENSITIVE)) {
                    data.getDefinition().setAttributeType(q, AttributeType.SENSITIVE_ATTRIBUTE);
                    continue;
                }
                if (r.micro != null && q.equals("age")) {
                    // INTEGER, as deid reads a column of integers; generalized before: a quasi-identifier
                    // of the lattice too.
                    if (r.microGeneralized) {
                        qiList.add(q);
                        data.getDefinition().setAttributeType(q, Hierarchy.create(dir + "/hierarchies/" + q + ".csv",
                                                                                   StandardCharsets.UTF_8, ';'));
                    } else {
                        data.getDefinition().setAttributeType(q, AttributeType.QUASI_IDENTIFYING_ATTRIBUTE);
                    }
                    data.getDefinition().setMicroAggregationFunction(q, microFunction(r.micro), r.microGeneralized);
                    data.getDefinition().setDataType(q, DataType.INTEGER);
                    continue;
                }
                qiList.add(q);
                data.getDefinition().setAttributeType(q, Hierarchy.create(dir + "/hierarchies/" + q + ".csv",
                                                                           StandardCharsets.UTF_8, ';'));
            }
            String[] qis = qiList.toArray(new String[0]);
            ARXConfiguration config = ARXConfiguration.create();
            switch (r.model) {
            case "k": config.addPrivacyModel(new KAnonymity(r.k)); break;
            case "distinct-l": config.addPrivacyModel(new DistinctLDiversity(SENSITIVE, (int) r.l)); break;
            case "recursive-cl": config.addPrivacyModel(new RecursiveCLDiversity(SENSITIVE, r.c, (int) r.l)); break;
            default: config.addPrivacyModel(new EqualDistanceTCloseness(SENSITIVE, r.t)); break;
            }
            if (subset != null) config.addPrivacyModel(new Inclusion(subset));
            config.setSuppressionLimit(r.suppression);
            if (r.response != null) {
                data.getDefinition().setResponseVariable(r.response, true);
                config.setQualityModel(Metric.createClassificationMetric(0.5));
            } else if (r.quality != null) {
                switch (r.quality) {
                case "precision": config.setQualityModel(Metric.createPrecisionMetric()); break;
                case "height": config.setQualityModel(Metric.createHeightMetric()); break;
                case "discernability": config.setQualityModel(Metric.createDiscernabilityMetric()); break;
                case "discernability-monotonic": config.setQualityModel(Metric.createDiscernabilityMetric(true)); break;
                case "aecs": config.setQualityModel(Metric.createAECSMetric()); break;
                case "normalized-entropy": config.setQualityModel(Metric.createNormalizedEntropyMetric()); break;
                case "ambiguity": config.setQualityModel(Metric.createAmbiguityMetric()); break;
                case "kl-divergence": config.setQualityModel(Metric.createKLDivergenceMetric()); break;
                case "entropy": config.setQualityModel(Metric.createEntropyMetric()); break;
                case "publisher-payout": config.setQualityModel(Metric.createPublisherPayoutMetric(false, 0.5)); break;
                default: throw new IllegalArgumentException(r.quality);
                }
            } else {
                config.setQualityModel(Metric.createLossMetric(0.5));
            }
            ARXResult result = new ARXAnonymizer().anonymize(data, config);
            StringBuilder e = new StringBuilder();
            e.append("  {\"name\": \"").append(r.name).append("\", \"dataset\": \"").append(r.dataset)
             .append("\", \"model\": \"").append(r.model).append('"');
            if (r.subset) e.append(", \"subset\": \"every tenth record from the fourth\"");
            switch (r.model) {
            case "k": e.append(", \"k\": ").append(r.k); break;
            case "distinct-l": e.append(", \"l\": ").append(fmt(r.l)); break;
            case "recursive-cl": e.append(", \"l\": ").append(fmt(r.l)).append(", \"c\": ").append(fmt(r.c)); break;
            default: e.append(", \"t\": ").append(r.t); break;
            }
            e.append(", \"suppression_limit\": ").append(r.suppression).append(", \"mode\": \"").append(r.mode)
             .append("\", \"gs_factor\": ").append(r.gsFactor);
            if (r.mode.equals("iterative")) {
                e.append(", \"max_iterations\": ").append(r.maxIterations).append(", \"adaption_factor\": ")
                 .append(r.adaptionFactor);
            }
            if (r.mode.equals("fast")) e.append(", \"records\": ").append(r.records);
            if (r.response != null) {
                e.append(", \"quality\": {\"model\": \"classification\", \"response-variables\": [\"")
                 .append(r.response).append("\"]}, \"response_quasi_identifying\": ").append(r.responseQi);
            }
            if (r.micro != null) {
                e.append(", \"microaggregation\": {\"attribute\": \"age\", \"function\": \"").append(r.micro)
                 .append("\", \"generalize_before\": ").append(r.microGeneralized).append("}");
            }
            if (r.quality != null) {
                String q = r.quality.equals("discernability-monotonic") ? "\"discernability\", \"monotonic\": true"
                                                                        : "\"" + r.quality + "\"";
                e.append(", \"quality\": {\"model\": ").append(q).append("}");
            }
            if (result.getGlobalOptimum() == null) {
                e.append(", \"global\": null}");
                entries.add(e.toString());
                continue;
            }
            DataHandle output = result.getOutput();
            int before = outliers(output, subset, false);
            ARXProcessStatistics stats;
            switch (r.mode) {
            case "single": stats = result.optimize(output, r.gsFactor); break;
            case "fast": stats = result.optimizeIterativeFast(output, r.records, r.gsFactor, p -> {}); break;
            default: stats = result.optimizeIterative(output, r.gsFactor, r.maxIterations, r.adaptionFactor); break;
            }
            int after = outliers(output, subset, false);
            File csv = new File(outDir, r.name + ".csv");
            output.save(csv, ';');
            String[] internal = result.getGlobalOptimum().getQuasiIdentifyingAttributes();
            e.append(", \"global\": ").append(step(result.getProcessStatistics().getStep(0), qis, internal));
            e.append(", \"passes\": [");
            List<String> passes = new ArrayList<>();
            for (ARXProcessStatistics.Step s : stats.getSteps()) passes.add(step(s, qis, internal));
            e.append(String.join(", ", passes)).append("]");
            e.append(", \"suppressed_before\": ").append(before).append(", \"suppressed_after\": ").append(after);
            if (subset != null) e.append(", \"suppressed_outside\": ").append(outliers(output, subset, true));
            e.append(", \"release_sha256\": \"").append(sha256(csv)).append("\"}");
            entries.add(e.toString());
        }
        System.out.println("{\n \"tool\": \"ARX 3.9.2 through bench/arx/ArxLocalRecoding.java\",");
        System.out.println(" \"datasets\": \"adult: examples/adult with examples/adult/hierarchies, every column "
                           + "quasi-identifying in the file's order, but occupation sensitive for the l-diversity and "
                           + "t-closeness runs; cup: the shared data folder's cup.csv and hierarchies, every column "
                           + "quasi-identifying; adult_subset_*: adult with the research subset of every tenth record "
                           + "from the fourth (record i with i % 10 == 3; ARX's Inclusion), suppressed_before and "
                           + "suppressed_after counting its records, suppressed_outside the records outside it\",");
        System.out.println(" \"note\": \"global optimum: optimal search, Loss (gs-factor 0.5, geometric mean), or "
                           + "classification accuracy (gs-factor 0.5) for runs with quality classification "
                           + "(response_quasi_identifying false: salary-class insensitive, not a quasi-identifier), or "
                           + "the factory default (Metric.create*Metric(), gs-factor 0.5) of the quality model the run "
                           + "names in quality; microaggregation: age aggregated with that function, generalized "
                           + "before or not; then "
                           + "single = optimize(handle, gs), iterative = optimizeIterative(handle, gs, max_iterations, "
                           + "adaption_factor), fast = optimizeIterativeFast(handle, records, gs). passes: ARX's steps of "
                           + "the local recoding (passes that found an optimum). release_sha256: the table "
                           + "DataHandle.save(file, ';') writes\",");
        System.out.println(" \"runs\": [");
        System.out.println(String.join(",\n", entries));
        System.out.println(" ]\n}");
    }
}
