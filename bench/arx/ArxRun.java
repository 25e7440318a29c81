// SPDX-License-Identifier: Apache-2.0
//
// Runs one de-identification job in ARX (built against ARX 3.9.2's public API) and prints one JSON line:
// the median wall time (and the JVM's CPU time) of ARX's anonymize() over --runs runs (after --warmup
// unmeasured runs, in one JVM), the transformations ARX checked, the optimum's levels by attribute, its
// information loss and the suppressed records. bench/compare-arx.sh translates a deid job file into these options and compiles
// this file; it is not part of deid.
//
//   java -cp libarx-3.9.2.jar:DIR ArxRun --data FILE [--delimiter C]
//       --qi NAME HIERARCHY ...           quasi-identifier with its hierarchy (ARX CSV, delimiter detected)
//       --sensitive NAME ...              sensitive attribute
//       --sensitive-hierarchy NAME FILE   hierarchy of a sensitive attribute (hierarchical t-closeness)
//       --identifying NAME ...            identifying attribute (removed)
//       --insensitive NAME ...            insensitive attribute (also the default of unnamed columns)
//       --order NAME FILE                 total order of a sensitive attribute's values, one per line
//       --min-level NAME L, --max-level NAME L   generalization constraints of a quasi-identifier
//       --weight NAME W                   attribute weight of a quasi-identifier in the quality model
//       --microaggregate NAME mean|median|mode|geometric-mean|interval true|false
//                                         microaggregation of a quasi-identifier (true: generalized before,
//                                         with the hierarchy of its --qi; false: not generalized, no --qi);
//                                         the JSON then holds each such column of the output: the SHA-256
//                                         of its values in row order joined by newlines, and its values with
//                                         their counts
//       --k K                             k-anonymity
//       --ldiv NAME distinct|entropy|grassberger|recursive L C    (C is '-' unless recursive;
//                                         grassberger: entropy l-diversity with Grassberger's estimator)
//       --tclose NAME equal|hierarchical|ordered T
//       --pu THRESHOLD POPULATION dankar|pitman|zayatz|snb
//       --avg-risk THRESHOLD HIGHEST RECORDS   average re-identification risk (HIGHEST, RECORDS '-' for none)
//       --sample-uniqueness THRESHOLD
//       --ddisclosure NAME DELTA           delta-disclosure privacy
//       --blikeness NAME basic|enhanced BETA   beta-likeness
//       --kmap K SIGNIFICANCE POPULATION poisson|zero-truncated-poisson   k-map with ARX's estimators
//       --profitability attack|no-attack|journalist-attack|journalist-no-attack  ARX's game-theoretic model
//                                         (ProfitabilityProsecutor, ProfitabilityProsecutorNoAttack, and the
//                                         journalist's ProfitabilityJournalist[NoAttack], which need --subset)
//       --subset FILE                     the research subset: a table of records of --data (ARX's
//                                         DataSubset.create(data, subset)); without a model that takes it,
//                                         added as ARX's Inclusion(subset)
//       --dpresence MIN MAX               delta-presence (DPresence; needs --subset)
//       --kmap-table K                    k-map with the population table (KMap(k, subset); needs --subset)
//       --journalist                      publisher-payout with the journalist attacker model
//       --cost-benefit BENEFIT LOSS GAIN COST   ARX's ARXCostBenefitConfiguration (publisher benefit and loss,
//                                         adversary gain and cost; default ARX's 1200 300 300 4)
//       --dp EPSILON DELTA                (epsilon, delta)-differential privacy (EDDifferentialPrivacy), in ARX's
//                                         deterministic mode (java.util.Random seeded 0xDEADBEEF); data-dependent
//                                         (SafePub search) unless --dp-generalization is given
//       --dp-budget B                     the search's share of epsilon (ARXConfiguration.setDPSearchBudget; default 0.1)
//       --dp-steps N                      the search's steps (heuristic search step limit in EXPANSIONS; default 100)
//       --dp-generalization NAME LEVEL    data-independent: the level of a quasi-identifier (repeat for each)
//       --suppression LIMIT               fraction of records that may be suppressed (default 0)
//       --quality loss|entropy|precision|height|discernability|aecs|normalized-entropy|ambiguity|kl-divergence|
//                 classification|publisher-payout    (publisher-payout: prosecutor, with --gs-factor)
//       --response NAME                   a response variable of the classification model (repeatable)
//       --monotonic                       the monotonic variant (entropy: ARX's MetricMDNUEntropy; discernability: DM*)
//       --aggregate geometric-mean|arithmetic-mean|sum|max    (default: ARX's default of the model)
//       --gs-factor X                     loss and classification only (default 0.5)
//       --output FILE                     write the released table of the optimum (';'-separated)
//       --runs N (default 3)  --warmup W (default 1)
//
// Exit codes: 0 done (also when no transformation is a solution: "solution_found": false), 2 bad arguments
// or files, 3 ARX failed.

import java.io.File;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.deidentifier.arx.ARXAnonymizer;
import org.deidentifier.arx.ARXConfiguration;
import org.deidentifier.arx.ARXCostBenefitConfiguration;
import org.deidentifier.arx.ARXLattice.ARXNode;
import org.deidentifier.arx.ARXPopulationModel;
import org.deidentifier.arx.ARXResult;
import org.deidentifier.arx.AttributeType;
import org.deidentifier.arx.AttributeType.Hierarchy;
import org.deidentifier.arx.Data;
import org.deidentifier.arx.DataSubset;
import org.deidentifier.arx.DataGeneralizationScheme;
import org.deidentifier.arx.DataHandle;
import org.deidentifier.arx.DataType;
import org.deidentifier.arx.criteria.AverageReidentificationRisk;
import org.deidentifier.arx.criteria.BasicBLikeness;
import org.deidentifier.arx.criteria.DDisclosurePrivacy;
import org.deidentifier.arx.criteria.DistinctLDiversity;
import org.deidentifier.arx.criteria.EDDifferentialPrivacy;
import org.deidentifier.arx.criteria.EnhancedBLikeness;
import org.deidentifier.arx.criteria.EntropyLDiversity;
import org.deidentifier.arx.criteria.EqualDistanceTCloseness;
import org.deidentifier.arx.criteria.HierarchicalDistanceTCloseness;
import org.deidentifier.arx.criteria.KAnonymity;
import org.deidentifier.arx.criteria.KMap;
import org.deidentifier.arx.criteria.DPresence;
import org.deidentifier.arx.criteria.Inclusion;
import org.deidentifier.arx.criteria.ProfitabilityJournalist;
import org.deidentifier.arx.criteria.ProfitabilityJournalistNoAttack;
import org.deidentifier.arx.criteria.OrderedDistanceTCloseness;
import org.deidentifier.arx.criteria.PopulationUniqueness;
import org.deidentifier.arx.criteria.ProfitabilityProsecutor;
import org.deidentifier.arx.criteria.ProfitabilityProsecutorNoAttack;
import org.deidentifier.arx.criteria.PrivacyCriterion;
import org.deidentifier.arx.criteria.RecursiveCLDiversity;
import org.deidentifier.arx.criteria.SampleUniqueness;
import org.deidentifier.arx.metric.InformationLoss;
import org.deidentifier.arx.metric.Metric;
import org.deidentifier.arx.metric.Metric.AggregateFunction;
import org.deidentifier.arx.risk.RiskModelPopulationUniqueness.PopulationUniquenessModel;

public final class ArxRun {

    /** A bad command line or input file: exit code 2. */
    static final class UsageError extends Exception {
        UsageError(String message) { super(message); }
    }

    // The job, as given on the command line.
    private String dataPath;
    private Character dataDelimiter;
    private final Map<String, String> qis = new LinkedHashMap<>();              // name -> hierarchy file
    private final Map<String, Integer> minLevels = new LinkedHashMap<>();
    private final Map<String, Integer> maxLevels = new LinkedHashMap<>();
    private final Map<String, Double> weights = new LinkedHashMap<>();
    private final Map<String, String[]> microaggregated = new LinkedHashMap<>(); // name -> function, clustered
    private final List<String> sensitive = new ArrayList<>();
    private final Map<String, String> sensitiveHierarchies = new LinkedHashMap<>();
    private final List<String> identifying = new ArrayList<>();
    private final List<String> insensitive = new ArrayList<>();
    private final List<String> responses = new ArrayList<>();
    private final Map<String, String> orders = new LinkedHashMap<>();           // name -> file of values
    private Integer k;
    private final List<String[]> ldiv = new ArrayList<>();                      // name, variant, l, c
    private final List<String[]> tclose = new ArrayList<>();                    // name, distance, t
    private String[] pu;                                                        // threshold, size, estimator
    private String[] avgRisk;                                                   // threshold, highest, records
    private Double sampleUniqueness;
    private String profitability;                                               // attack | no-attack
    private double[] costBenefit;                                               // benefit, loss, gain, cost
    private String[] kmap;                                                      // k, significance, population, estimator
    private String subsetPath;
    private DataSubset subset;                                                  // of the data of the current run
    private double[] dpresence;                                                 // min, max
    private Integer kmapTable;
    private boolean journalist = false;
    private final List<String[]> ddisclosure = new ArrayList<>();               // name, delta
    private final List<String[]> blikeness = new ArrayList<>();                 // name, variant, beta
    private double[] dp;                                                        // epsilon, delta
    private Double dpBudget;
    private Integer dpSteps;
    private final Map<String, Integer> dpGeneralization = new LinkedHashMap<>();
    private double suppression = 0d;
    private String quality = "loss";
    private String aggregate;
    private boolean monotonic = false;
    private Double gsFactor;
    private String outputPath;                                                  // --output: released table
    private int runs = 3;
    private int warmup = 1;

    public static void main(String[] args) {
        ArxRun run = new ArxRun();
        try {
            run.parse(args);
            System.out.println(run.execute());
        } catch (UsageError e) {
            System.err.println("ArxRun: error: " + e.getMessage());
            System.exit(2);
        } catch (IOException e) {
            System.err.println("ArxRun: error: " + e.getMessage());
            System.exit(2);
        } catch (RuntimeException e) {
            System.err.println("ArxRun: ARX failed: " + e);
            e.printStackTrace(System.err);
            System.exit(3);
        }
    }

    // ------------------------------------------------------------------ command line

    private void parse(String[] args) throws UsageError {
        int i = 0;
        while (i < args.length) {
            String option = args[i++];
            switch (option) {
            case "--data": dataPath = take(args, i++, option); break;
            case "--delimiter": dataDelimiter = oneChar(take(args, i++, option), option); break;
            case "--qi": qis.put(take(args, i, option), take(args, i + 1, option)); i += 2; break;
            case "--sensitive": sensitive.add(take(args, i++, option)); break;
            case "--sensitive-hierarchy":
                sensitiveHierarchies.put(take(args, i, option), take(args, i + 1, option)); i += 2; break;
            case "--identifying": identifying.add(take(args, i++, option)); break;
            case "--insensitive": insensitive.add(take(args, i++, option)); break;
            case "--order": orders.put(take(args, i, option), take(args, i + 1, option)); i += 2; break;
            case "--min-level":
                minLevels.put(take(args, i, option), Integer.parseInt(take(args, i + 1, option))); i += 2; break;
            case "--max-level":
                maxLevels.put(take(args, i, option), Integer.parseInt(take(args, i + 1, option))); i += 2; break;
            case "--weight": weights.put(take(args, i, option), number(take(args, i + 1, option), option)); i += 2; break;
            case "--microaggregate":
                microaggregated.put(take(args, i, option), new String[] {take(args, i + 1, option), take(args, i + 2, option)});
                i += 3;
                break;
            case "--k": k = positiveInt(take(args, i++, option), option); break;
            case "--ldiv":
                ldiv.add(new String[] {take(args, i, option), take(args, i + 1, option), take(args, i + 2, option),
                                       take(args, i + 3, option)});
                i += 4; break;
            case "--tclose":
                tclose.add(new String[] {take(args, i, option), take(args, i + 1, option), take(args, i + 2, option)});
                i += 3; break;
            case "--pu":
                pu = new String[] {take(args, i, option), take(args, i + 1, option), take(args, i + 2, option)};
                i += 3; break;
            case "--avg-risk":
                avgRisk = new String[] {take(args, i, option), take(args, i + 1, option), take(args, i + 2, option)};
                i += 3; break;
            case "--profitability": profitability = take(args, i++, option); break;
            case "--cost-benefit":
                costBenefit = new double[4];
                for (int j = 0; j < 4; ++j) costBenefit[j] = number(take(args, i + j, option), option);
                i += 4; break;
            case "--kmap":
                kmap = new String[] {take(args, i, option), take(args, i + 1, option), take(args, i + 2, option),
                                     take(args, i + 3, option)};
                i += 4; break;
            case "--sample-uniqueness": sampleUniqueness = number(take(args, i++, option), option); break;
            case "--ddisclosure":
                ddisclosure.add(new String[] {take(args, i, option), take(args, i + 1, option)});
                i += 2; break;
            case "--blikeness":
                blikeness.add(new String[] {take(args, i, option), take(args, i + 1, option), take(args, i + 2, option)});
                i += 3; break;
            case "--subset": subsetPath = take(args, i++, option); break;
            case "--dpresence":
                dpresence = new double[] {number(take(args, i, option), option), number(take(args, i + 1, option), option)};
                i += 2;
                break;
            case "--kmap-table": kmapTable = positiveInt(take(args, i++, option), option); break;
            case "--journalist": journalist = true; break;
            case "--dp":
                dp = new double[] {number(take(args, i, option), option), number(take(args, i + 1, option), option)};
                i += 2; break;
            case "--dp-budget": dpBudget = number(take(args, i++, option), option); break;
            case "--dp-steps": dpSteps = Integer.parseInt(take(args, i++, option)); break;
            case "--dp-generalization":
                dpGeneralization.put(take(args, i, option), Integer.parseInt(take(args, i + 1, option))); i += 2; break;
            case "--suppression": suppression = number(take(args, i++, option), option); break;
            case "--quality": quality = take(args, i++, option); break;
            case "--aggregate": aggregate = take(args, i++, option); break;
            case "--monotonic": monotonic = true; break;
            case "--response": responses.add(take(args, i++, option)); break;
            case "--output": outputPath = take(args, i++, option); break;
            case "--gs-factor": gsFactor = number(take(args, i++, option), option); break;
            case "--runs": runs = positiveInt(take(args, i++, option), option); break;
            case "--warmup": warmup = Integer.parseInt(take(args, i++, option)); break;
            default: throw new UsageError("unknown option '" + option + "'");
            }
        }
        if (dataPath == null) throw new UsageError("--data FILE is required");
        if (qis.isEmpty()) throw new UsageError("at least one --qi NAME HIERARCHY is required");
        if (k == null && ldiv.isEmpty() && tclose.isEmpty() && pu == null && avgRisk == null
            && sampleUniqueness == null && ddisclosure.isEmpty() && blikeness.isEmpty() && kmap == null
            && profitability == null && dpresence == null && kmapTable == null && subsetPath == null && dp == null) {
            throw new UsageError("no privacy model (--k, --ldiv, --tclose, --pu, --avg-risk, --sample-uniqueness, "
                                 + "--ddisclosure, --blikeness)");
        }
        if (suppression < 0d || suppression > 1d) throw new UsageError("--suppression must be in [0, 1]");
        if (warmup < 0) throw new UsageError("--warmup must be >= 0");
    }

    private static String take(String[] args, int i, String option) throws UsageError {
        if (i >= args.length) throw new UsageError(option + " needs more arguments");
        return args[i];
    }

    private static char oneChar(String s, String option) throws UsageError {
        if (s.equals("\\t") || s.equals("tab")) return '\t';
        if (s.length() != 1) throw new UsageError(option + " must be one character, got '" + s + "'");
        return s.charAt(0);
    }

    private static int positiveInt(String s, String option) throws UsageError {
        try {
            int v = Integer.parseInt(s);
            if (v < 1) throw new NumberFormatException();
            return v;
        } catch (NumberFormatException e) {
            throw new UsageError(option + " must be a positive integer, got '" + s + "'");
        }
    }

    private static double number(String s, String option) throws UsageError {
        try {
            double v = Double.parseDouble(s);
            if (Double.isNaN(v) || Double.isInfinite(v)) throw new NumberFormatException();
            return v;
        } catch (NumberFormatException e) {
            throw new UsageError(option + " must be a number, got '" + s + "'");
        }
    }

    // ------------------------------------------------------------------ the job in ARX

    /** The delimiter of a CSV file as deid detects it: the most frequent of ; , tab | on its first line, the
     *  earlier in that list on a tie, ',' when none occurs. */
    private static char detectDelimiter(String path) throws IOException {
        String first;
        try (java.io.BufferedReader r = Files.newBufferedReader(new File(path).toPath(), StandardCharsets.UTF_8)) {
            first = r.readLine();
        }
        if (first == null) throw new IOException(path + ": empty file");
        char best = ',';
        long bestCount = 0;
        for (char c : new char[] {';', ',', '\t', '|'}) {
            long count = first.chars().filter(x -> x == c).count();
            if (count > bestCount) { best = c; bestCount = count; }
        }
        return best;
    }

    private Hierarchy readHierarchy(String path) throws IOException {
        if (!new File(path).isFile()) throw new IOException("hierarchy " + path + " not found");
        return Hierarchy.create(path, StandardCharsets.UTF_8, detectDelimiter(path));
    }

    /** Reads the data and sets every attribute's role (and data type for ordered t-closeness). */
    private Data load(Map<String, Hierarchy> hierarchies, char delimiter) throws IOException, UsageError {
        Data data = Data.create(dataPath, StandardCharsets.UTF_8, delimiter);
        DataHandle handle = data.getHandle();
        List<String> columns = new ArrayList<>();
        for (int c = 0; c < handle.getNumColumns(); c++) columns.add(handle.getAttributeName(c));
        List<String> named = new ArrayList<>();
        named.addAll(qis.keySet());
        named.addAll(microaggregated.keySet());
        named.addAll(sensitive);
        named.addAll(identifying);
        named.addAll(insensitive);
        for (String name : named) {
            if (!columns.contains(name)) throw new UsageError("attribute '" + name + "' is not a column of " + dataPath);
        }
        for (String column : columns) {
            data.getDefinition().setAttributeType(column, AttributeType.INSENSITIVE_ATTRIBUTE);
        }
        for (String name : identifying) {
            data.getDefinition().setAttributeType(name, AttributeType.IDENTIFYING_ATTRIBUTE);
        }
        for (String name : sensitive) {
            data.getDefinition().setAttributeType(name, AttributeType.SENSITIVE_ATTRIBUTE);
        }
        for (Map.Entry<String, String> qi : qis.entrySet()) {
            data.getDefinition().setAttributeType(qi.getKey(), hierarchies.get(qi.getKey()));
        }
        for (Map.Entry<String, String[]> m : microaggregated.entrySet()) {
            String name = m.getKey();
            boolean clustered = Boolean.parseBoolean(m.getValue()[1]);
            if (clustered != qis.containsKey(name)) {
                throw new UsageError("--microaggregate " + name + ": " + (clustered ? "true needs --qi with a hierarchy"
                                                                               : "false takes no --qi"));
            }
            if (!clustered) data.getDefinition().setAttributeType(name, AttributeType.QUASI_IDENTIFYING_ATTRIBUTE);
            data.getDefinition().setMicroAggregationFunction(name, aggregationFunction(m.getValue()[0]), clustered);
            data.getDefinition().setDataType(name, numericType(handle, columns, name));
        }
        for (String name : responses) {
            data.getDefinition().setResponseVariable(name, true);
        }
        for (Map.Entry<String, Integer> m : minLevels.entrySet()) {
            data.getDefinition().setMinimumGeneralization(m.getKey(), m.getValue());
        }
        for (Map.Entry<String, Integer> m : maxLevels.entrySet()) {
            data.getDefinition().setMaximumGeneralization(m.getKey(), m.getValue());
        }
        for (String[] t : tclose) {
            if (t[1].equals("ordered")) data.getDefinition().setDataType(t[0], orderedType(handle, columns, t[0]));
        }
        return data;
    }

    private static AttributeType.MicroAggregationFunction aggregationFunction(String name) throws UsageError {
        switch (name) {
        case "mean": return AttributeType.MicroAggregationFunction.createArithmeticMean();
        case "geometric-mean": return AttributeType.MicroAggregationFunction.createGeometricMean();
        case "median": return AttributeType.MicroAggregationFunction.createMedian();
        case "mode": return AttributeType.MicroAggregationFunction.createMode();
        case "interval": return AttributeType.MicroAggregationFunction.createInterval();
        default: throw new UsageError("unknown microaggregation function '" + name + "'");
        }
    }

    /** INTEGER when every value of the column is an integer, else DECIMAL (deid's rule for microaggregation). */
    private static DataType<?> numericType(DataHandle handle, List<String> columns, String name) throws UsageError {
        int column = columns.indexOf(name);
        for (int row = 0; row < handle.getNumRows(); row++) {
            String value = handle.getValue(row, column);
            if (value.isEmpty()) continue;
            try {
                Long.parseLong(value);
            } catch (NumberFormatException e) {
                return DataType.DECIMAL;
            }
        }
        return DataType.INTEGER;
    }

    /** The data type that orders an attribute: its --order list, else integer or decimal when all values are. */
    private DataType<?> orderedType(DataHandle handle, List<String> columns, String name) throws IOException, UsageError {
        if (orders.containsKey(name)) {
            List<String> values = new ArrayList<>();
            for (String line : Files.readAllLines(new File(orders.get(name)).toPath(), StandardCharsets.UTF_8)) {
                values.add(line);
            }
            return DataType.createOrderedString(values);
        }
        int column = columns.indexOf(name);
        boolean integers = true;
        for (int row = 0; row < handle.getNumRows(); row++) {
            String value = handle.getValue(row, column);
            try {
                Long.parseLong(value.trim());
            } catch (NumberFormatException e) {
                integers = false;
                try {
                    Double.parseDouble(value.trim());
                } catch (NumberFormatException e2) {
                    throw new UsageError("t-closeness with ordered distance on '" + name + "': value '" + value
                                         + "' is not a number and no --order is given");
                }
            }
        }
        return integers ? DataType.INTEGER : DataType.DECIMAL;
    }

    private AggregateFunction aggregateFunction() throws UsageError {
        switch (aggregate) {
        case "geometric-mean": return AggregateFunction.GEOMETRIC_MEAN;
        case "arithmetic-mean": return AggregateFunction.ARITHMETIC_MEAN;
        case "sum": return AggregateFunction.SUM;
        case "max": return AggregateFunction.MAXIMUM;
        default: throw new UsageError("unknown --aggregate '" + aggregate + "'");
        }
    }

    /** ARX's quality model of deid's name, with ARX's factory defaults (docs/quality-models.md). */
    private Metric<?> metric() throws UsageError {
        if (gsFactor != null && !quality.equals("loss") && !quality.equals("classification")
            && !quality.equals("publisher-payout")) {
            throw new UsageError("--gs-factor applies to loss and classification only");
        }
        if (quality.equals("classification") == responses.isEmpty()) {
            throw new UsageError("--quality classification needs --response, and --response needs it");
        }
        if (monotonic && !quality.equals("entropy") && !quality.equals("discernability")) {
            throw new UsageError("--monotonic applies to entropy and discernability only");
        }
        if (aggregate != null && (quality.equals("discernability") || quality.equals("aecs") || quality.equals("ambiguity")
                                  || quality.equals("kl-divergence"))) {
            throw new UsageError("--aggregate does not apply to " + quality);
        }
        double gs = gsFactor == null ? 0.5d : gsFactor;
        switch (quality) {
        case "loss":
            return aggregate == null ? Metric.createLossMetric(gs) : Metric.createLossMetric(gs, aggregateFunction());
        case "entropy":
            return aggregate == null ? Metric.createEntropyMetric(monotonic)
                                     : Metric.createEntropyMetric(monotonic, aggregateFunction());
        case "normalized-entropy":
            return aggregate == null ? Metric.createNormalizedEntropyMetric()
                                     : Metric.createNormalizedEntropyMetric(aggregateFunction());
        case "ambiguity": return Metric.createAmbiguityMetric();
        case "kl-divergence": return Metric.createKLDivergenceMetric();
        case "precision":
            return aggregate == null ? Metric.createPrecisionMetric(false)
                                     : Metric.createPrecisionMetric(false, aggregateFunction());
        case "height":
            return aggregate == null ? Metric.createHeightMetric() : Metric.createHeightMetric(aggregateFunction());
        case "discernability": return Metric.createDiscernabilityMetric(monotonic);
        case "aecs": return Metric.createAECSMetric();
        case "classification": return Metric.createClassificationMetric(gs);
        case "publisher-payout": return Metric.createPublisherPayoutMetric(journalist, gs);
        default: throw new UsageError("unknown --quality '" + quality + "'");
        }
    }

    private List<PrivacyCriterion> criteria(Map<String, Hierarchy> sensitiveH) throws UsageError {
        List<PrivacyCriterion> result = new ArrayList<>();
        if (k != null) result.add(new KAnonymity(k));
        for (String[] l : ldiv) {
            double value = number(l[2], "--ldiv l");
            switch (l[1]) {
            case "distinct": result.add(new DistinctLDiversity(l[0], (int) value)); break;
            case "entropy": result.add(new EntropyLDiversity(l[0], value)); break;
            case "grassberger":
                result.add(new EntropyLDiversity(l[0], value, EntropyLDiversity.EntropyEstimator.GRASSBERGER));
                break;
            case "recursive":
                result.add(new RecursiveCLDiversity(l[0], number(l[3], "--ldiv c"), (int) value));
                break;
            default: throw new UsageError("unknown l-diversity variant '" + l[1] + "'");
            }
            if ((l[1].equals("distinct") || l[1].equals("recursive")) && value != Math.rint(value)) {
                throw new UsageError("l of " + l[1] + " l-diversity must be an integer");
            }
        }
        for (String[] t : tclose) {
            double value = number(t[2], "--tclose t");
            switch (t[1]) {
            case "equal": result.add(new EqualDistanceTCloseness(t[0], value)); break;
            case "ordered": result.add(new OrderedDistanceTCloseness(t[0], value)); break;
            case "hierarchical":
                if (!sensitiveH.containsKey(t[0])) {
                    throw new UsageError("hierarchical t-closeness on '" + t[0] + "' needs --sensitive-hierarchy");
                }
                result.add(new HierarchicalDistanceTCloseness(t[0], value, sensitiveH.get(t[0])));
                break;
            default: throw new UsageError("unknown t-closeness distance '" + t[1] + "'");
            }
        }
        if (pu != null) {
            double threshold = number(pu[0], "--pu threshold");
            double size = number(pu[1], "--pu population");
            if (size != Math.rint(size) || size < 1) throw new UsageError("--pu population must be a positive integer");
            PopulationUniquenessModel model;
            switch (pu[2]) {
            case "dankar": model = PopulationUniquenessModel.DANKAR; break;
            case "pitman": model = PopulationUniquenessModel.PITMAN; break;
            case "zayatz": model = PopulationUniquenessModel.ZAYATZ; break;
            case "snb": model = PopulationUniquenessModel.SNB; break;
            default: throw new UsageError("unknown population-uniqueness estimator '" + pu[2] + "'");
            }
            result.add(new PopulationUniqueness(threshold, model, ARXPopulationModel.create((long) size)));
        }
        if (avgRisk != null) {
            double threshold = number(avgRisk[0], "--avg-risk threshold");
            if (avgRisk[1].equals("-")) {
                result.add(new AverageReidentificationRisk(threshold));
            } else {
                double records = avgRisk[2].equals("-") ? 0d : number(avgRisk[2], "--avg-risk records");
                result.add(new AverageReidentificationRisk(threshold, number(avgRisk[1], "--avg-risk highest"), records));
            }
        }
        if (sampleUniqueness != null) result.add(new SampleUniqueness(sampleUniqueness));
        if (profitability != null) {
            switch (profitability) {
            case "attack": result.add(new ProfitabilityProsecutor()); break;
            case "no-attack": result.add(new ProfitabilityProsecutorNoAttack()); break;
            case "journalist-attack": result.add(new ProfitabilityJournalist(needSubset("--profitability"))); break;
            case "journalist-no-attack":
                result.add(new ProfitabilityJournalistNoAttack(needSubset("--profitability")));
                break;
            default: throw new UsageError("unknown --profitability '" + profitability + "'");
            }
        }
        if (kmap != null) {
            double size = number(kmap[2], "--kmap population");
            KMap.CellSizeEstimator estimator;
            switch (kmap[3]) {
            case "poisson": estimator = KMap.CellSizeEstimator.POISSON; break;
            case "zero-truncated-poisson": estimator = KMap.CellSizeEstimator.ZERO_TRUNCATED_POISSON; break;
            default: throw new UsageError("unknown k-map estimator '" + kmap[3] + "'");
            }
            result.add(new KMap(positiveInt(kmap[0], "--kmap k"), number(kmap[1], "--kmap significance"),
                                ARXPopulationModel.create((long) size), estimator));
        }
        if (dpresence != null) result.add(new DPresence(dpresence[0], dpresence[1], needSubset("--dpresence")));
        if (kmapTable != null) result.add(new KMap(kmapTable, needSubset("--kmap-table")));
        if (subset != null && result.stream().noneMatch(PrivacyCriterion::isSubsetAvailable)) {
            result.add(new Inclusion(subset));
        }
        if (dp != null) {
            DataGeneralizationScheme scheme = null;
            if (!dpGeneralization.isEmpty()) {
                scheme = DataGeneralizationScheme.create();
                for (Map.Entry<String, Integer> g : dpGeneralization.entrySet()) {
                    scheme.generalize(g.getKey(), g.getValue());
                }
            }
            result.add(new EDDifferentialPrivacy(dp[0], dp[1], scheme, true));
        }
        for (String[] d : ddisclosure) result.add(new DDisclosurePrivacy(d[0], number(d[1], "--ddisclosure delta")));
        for (String[] b : blikeness) {
            double beta = number(b[2], "--blikeness beta");
            switch (b[1]) {
            case "basic": result.add(new BasicBLikeness(b[0], beta)); break;
            case "enhanced": result.add(new EnhancedBLikeness(b[0], beta)); break;
            default: throw new UsageError("unknown beta-likeness variant '" + b[1] + "'");
            }
        }
        return result;
    }

    private DataSubset needSubset(String option) throws UsageError {
        if (subset == null) throw new UsageError(option + " needs --subset");
        return subset;
    }

    private ARXConfiguration configuration(Map<String, Hierarchy> sensitiveH) throws UsageError {
        ARXConfiguration config = ARXConfiguration.create();
        for (PrivacyCriterion c : criteria(sensitiveH)) config.addPrivacyModel(c);
        config.setSuppressionLimit(suppression);
        if (costBenefit != null) {
            config.setCostBenefitConfiguration(ARXCostBenefitConfiguration.create().setPublisherBenefit(costBenefit[0])
                .setPublisherLoss(costBenefit[1]).setAdversaryGain(costBenefit[2]).setAdversaryCost(costBenefit[3]));
        }
        config.setQualityModel(metric());
        for (Map.Entry<String, Double> w : weights.entrySet()) config.setAttributeWeight(w.getKey(), w.getValue());
        // Globally optimal search (FLASH) whatever the lattice's size: ARX would switch to a heuristic above
        // its threshold of 100,000 transformations.
        config.setAlgorithm(ARXConfiguration.AnonymizationAlgorithm.OPTIMAL);
        config.setHeuristicSearchThreshold(Integer.MAX_VALUE);
        if (dp != null) {
            if (dpBudget != null) config.setDPSearchBudget(dpBudget);
            config.setHeuristicSearchStepLimit(dpSteps != null ? dpSteps : 100,
                                               ARXConfiguration.SearchStepSemantics.EXPANSIONS);
            // No time limit (ARX's default is 30 s): the walk must not depend on the machine's speed.
            config.setHeuristicSearchTimeLimit(Integer.MAX_VALUE);
        }
        return config;
    }

    // ------------------------------------------------------------------ running and reporting

    private String execute() throws IOException, UsageError {
        char delimiter = dataDelimiter != null ? dataDelimiter : detectDelimiter(dataPath);
        if (!new File(dataPath).isFile()) throw new IOException("data " + dataPath + " not found");
        long loadStart = System.nanoTime();
        Map<String, Hierarchy> hierarchies = new LinkedHashMap<>();
        for (Map.Entry<String, String> qi : qis.entrySet()) hierarchies.put(qi.getKey(), readHierarchy(qi.getValue()));
        Map<String, Hierarchy> sensitiveH = new LinkedHashMap<>();
        for (Map.Entry<String, String> s : sensitiveHierarchies.entrySet()) {
            sensitiveH.put(s.getKey(), readHierarchy(s.getValue()));
        }
        double hierarchyMs = (System.nanoTime() - loadStart) / 1e6;

        List<Double> anonymizeMs = new ArrayList<>();
        List<Double> anonymizeCpuMs = new ArrayList<>();
        List<Double> loadMs = new ArrayList<>();
        ARXResult result = null;
        Data data = null;
        for (int run = 0; run < warmup + runs; run++) {
            if (data != null) data.getHandle().release();
            long t0 = System.nanoTime();
            data = load(hierarchies, delimiter);
            if (subsetPath != null) {
                subset = DataSubset.create(data, Data.create(subsetPath, StandardCharsets.UTF_8, delimiter));
            }
            long t1 = System.nanoTime();
            long c1 = processCpuNanos();
            ARXAnonymizer anonymizer = new ARXAnonymizer();
            result = anonymizer.anonymize(data, configuration(sensitiveH));
            long t2 = System.nanoTime();
            long c2 = processCpuNanos();
            if (run >= warmup) {
                loadMs.add((t1 - t0) / 1e6);
                anonymizeMs.add((t2 - t1) / 1e6);
                if (c1 >= 0 && c2 >= 0) anonymizeCpuMs.add((c2 - c1) / 1e6);
            }
        }
        return json(result, data, anonymizeMs, anonymizeCpuMs, loadMs, hierarchyMs);
    }

    /** CPU time of the whole JVM (all threads: ARX's, the garbage collector's, the compiler's), or -1. */
    private static long processCpuNanos() {
        java.lang.management.OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        if (os instanceof com.sun.management.OperatingSystemMXBean) {
            return ((com.sun.management.OperatingSystemMXBean) os).getProcessCpuTime();
        }
        return -1;
    }

    private static double median(List<Double> values) {
        double[] v = values.stream().mapToDouble(Double::doubleValue).toArray();
        Arrays.sort(v);
        int n = v.length;
        return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2d;
    }

    /** An information loss as a number: the aggregate of multi-dimensional models, the value of the others. */
    private static double lossValue(InformationLoss<?> loss) {
        Object value = loss.getValue();
        if (value instanceof Double) return (Double) value;
        return Double.parseDouble(loss.toString());   // AbstractILMultiDimensionalReduced prints its aggregate
    }

    private String json(ARXResult result, Data data, List<Double> anonymizeMs, List<Double> anonymizeCpuMs,
                        List<Double> loadMs, double hierarchyMs) {
        StringBuilder out = new StringBuilder();
        out.append("{\"tool\": \"ARX ").append(jsonString(arxVersion())).append("\"");
        out.append(", \"java\": \"").append(jsonString(System.getProperty("java.version"))).append("\"");
        out.append(", \"runs\": ").append(anonymizeMs.size()).append(", \"warmup\": ").append(warmup);
        out.append(", \"anonymize_ms_median\": ").append(fmt(median(anonymizeMs)));
        out.append(", \"anonymize_ms\": [");
        for (int i = 0; i < anonymizeMs.size(); i++) out.append(i == 0 ? "" : ", ").append(fmt(anonymizeMs.get(i)));
        out.append("], \"anonymize_cpu_ms_median\": ")
           .append(anonymizeCpuMs.isEmpty() ? "null" : fmt(median(anonymizeCpuMs)));
        out.append(", \"load_ms_median\": ").append(fmt(median(loadMs)));
        out.append(", \"hierarchies_ms\": ").append(fmt(hierarchyMs));

        // ARX's own count (its GUI's "transformations checked"): nodes of the lattice that were checked or
        // whose information loss is known exactly (lowest bound == highest bound); and the nodes that the
        // checker evaluated (ARXNode.isChecked()).
        long checkedNodes = 0;
        long materialized = 0;
        for (ARXNode[] level : result.getLattice().getLevels()) {
            for (ARXNode node : level) {
                materialized++;
                if (node.isChecked()) checkedNodes++;
            }
        }
        out.append(", \"checks\": ").append(result.getProcessStatistics().getTransformationsChecked());
        out.append(", \"checked_nodes\": ").append(checkedNodes);
        out.append(", \"lattice_nodes\": ").append(materialized);
        out.append(", \"lattice_size\": ").append(result.getLattice().getVirtualSize());
        out.append(", \"records\": ").append(data.getHandle().getNumRows());
        out.append(", \"quality_model\": \"").append(jsonString(result.getConfiguration().getQualityModel().toString()))
           .append("\"");
        out.append(", \"privacy_models\": [");
        int model = 0;
        for (PrivacyCriterion c : result.getConfiguration().getPrivacyModels()) {
            out.append(model++ == 0 ? "" : ", ").append('"').append(jsonString(c.toString())).append('"');
        }
        out.append("]");

        if (dp != null) {
            // The model's k and beta and ARX's sample (the research subset it drew): its size and the SHA-256
            // of its row indices (0-based, ascending) joined by newlines.
            EDDifferentialPrivacy dpModel = result.getConfiguration().getPrivacyModel(EDDifferentialPrivacy.class);
            int[] rows = dpModel.getDataSubset().getArray();
            StringBuilder joined = new StringBuilder();
            for (int i = 0; i < rows.length; i++) joined.append(i == 0 ? "" : "\n").append(rows[i]);
            out.append(", \"dp\": {\"k\": ").append(dpModel.getK()).append(", \"beta\": ").append(Double.toString(dpModel.getBeta()))
               .append(", \"sample_size\": ").append(rows.length).append(", \"sample_sha256\": \"")
               .append(sha256(joined.toString())).append("\"}");
        }
        ARXNode optimum = result.getGlobalOptimum();
        out.append(", \"solution_found\": ").append(optimum != null);
        out.append(", \"optimal\": ").append(result.getOptimumFound());
        if (optimum == null) {
            out.append(", \"transformation\": null, \"information_loss\": null, \"suppressed_records\": null}");
            return out.toString();
        }
        out.append(", \"transformation\": {");
        String[] names = optimum.getQuasiIdentifyingAttributes();
        for (int i = 0; i < names.length; i++) {
            out.append(i == 0 ? "" : ", ").append('"').append(jsonString(names[i])).append("\": ")
               .append(optimum.getGeneralization(names[i]));
        }
        out.append("}");
        InformationLoss<?> loss = optimum.getHighestScore();
        out.append(", \"information_loss\": ").append(fmt(lossValue(loss)));
        out.append(", \"information_loss_text\": \"").append(jsonString(loss.toString())).append("\"");
        DataHandle output = result.getOutput(optimum, false);
        if (outputPath != null) {
            try {
                output.save(new File(outputPath), ';');
            } catch (IOException e) {
                throw new RuntimeException("cannot write " + outputPath + ": " + e.getMessage(), e);
            }
        }
        int suppressed = 0;
        for (int row = 0; row < output.getNumRows(); row++) {
            if (output.isOutlier(row)) suppressed++;
        }
        out.append(", \"suppressed_records\": ").append(suppressed);
        if (!microaggregated.isEmpty()) {
            out.append(", \"microaggregated\": {");
            boolean first = true;
            for (String name : microaggregated.keySet()) {
                int column = output.getColumnIndexOf(name);
                StringBuilder joined = new StringBuilder();
                Map<String, Integer> counts = new java.util.TreeMap<>();
                for (int row = 0; row < output.getNumRows(); row++) {
                    String value = output.getValue(row, column);
                    joined.append(row == 0 ? "" : "\n").append(value);
                    counts.merge(value, 1, Integer::sum);
                }
                out.append(first ? "" : ", ").append('"').append(jsonString(name)).append("\": {\"sha256\": \"")
                   .append(sha256(joined.toString())).append("\", \"values\": {");
                boolean firstValue = true;
                for (Map.Entry<String, Integer> c : counts.entrySet()) {
                    out.append(firstValue ? "" : ", ").append('"').append(jsonString(c.getKey())).append("\": ")
                       .append(c.getValue());
                    firstValue = false;
                }
                out.append("}}");
                first = false;
            }
            out.append("}");
        }
        out.append("}");
        return out.toString();
    }

    private static String sha256(String text) {
        try {
            byte[] digest = java.security.MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
            StringBuilder hex = new StringBuilder();
            for (byte b : digest) hex.append(String.format(Locale.ROOT, "%02x", b));
            return hex.toString();
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** ARXAnonymizer.VERSION of the jar on the class path (read at run time: the constant would be inlined). */
    private static String arxVersion() {
        try {
            return String.valueOf(ARXAnonymizer.class.getField("VERSION").get(null));
        } catch (ReflectiveOperationException e) {
            return "(unknown version)";
        }
    }

    private static String fmt(double v) {
        if (Double.isNaN(v) || Double.isInfinite(v)) return "null";
        if (v == Math.rint(v) && Math.abs(v) < 1e15) return String.format(Locale.ROOT, "%.1f", v);
        return Double.toString(v);   // shortest representation that reads back to the same double
    }

    private static String jsonString(String s) {
        StringBuilder b = new StringBuilder();
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') b.append('\\').append(c);
            else if (c < 0x20) b.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
            else b.append(c);
        }
        return b.toString();
    }
}
