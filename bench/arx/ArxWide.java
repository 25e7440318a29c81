// SPDX-License-Identifier: Apache-2.0
//
// One run of ARX 3.9.2 for the wide-table benchmark (bench/wide-tables.py): a ';'-separated CSV whose
// listed columns are quasi-identifying (hierarchies DIR/NAME.csv, the other columns insensitive),
// k-anonymity, a suppression limit, ARX's Loss (gs-factor 0.5, geometric mean), and one of ARX's heuristic
// searches (BEST_EFFORT_BOTTOM_UP, BEST_EFFORT_TOP_DOWN, BEST_EFFORT_GENETIC) with a time limit
// (setHeuristicSearchTimeLimit) and no step limit, every other setting ARX's default; the genetic
// algorithm in deterministic mode (java.util.Random(0xDEADBEEF)), as deid's default seed `arx`. Prints
// one JSON line: the checks, the optimum's transformation, information loss and per-attribute values
// (ARX's order of the dimensions), and the seconds of
// reading and of ARXAnonymizer.anonymize.
//
//   javac -nowarn -cp ARX_JAR -d CLASSES bench/arx/ArxWide.java
//   java -cp ARX_JAR:CLASSES ArxWide CSV HIERARCHY_DIR QI1,QI2,... bottom-up|top-down|genetic SECONDS K LIMIT [STEPS]
//
// STEPS, when given, is the step limit (setHeuristicSearchStepLimit, in checks) instead of none: with the
// checks after which deid's same search found its best, ARX's time to that best.
//
// Not part of deid.

import java.nio.charset.StandardCharsets;
import java.util.Locale;

import org.deidentifier.arx.ARXAnonymizer;
import org.deidentifier.arx.ARXConfiguration;
import org.deidentifier.arx.ARXConfiguration.AnonymizationAlgorithm;
import org.deidentifier.arx.ARXLattice.ARXNode;
import org.deidentifier.arx.ARXResult;
import org.deidentifier.arx.AttributeType;
import org.deidentifier.arx.AttributeType.Hierarchy;
import org.deidentifier.arx.Data;
import org.deidentifier.arx.criteria.KAnonymity;
import org.deidentifier.arx.metric.Metric;

public class ArxWide {

    static String quote(String s) {
        return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 7 && args.length != 8) {
            System.err.println("usage: ArxWide CSV HIERARCHY_DIR QI1,QI2,... bottom-up|top-down|genetic SECONDS K LIMIT [STEPS]");
            System.exit(2);
        }
        String csv = args[0];
        String dir = args[1];
        String[] qis = args[2].split(",");
        String name = args[3];
        double seconds = Double.parseDouble(args[4]);
        int k = Integer.parseInt(args[5]);
        double limit = Double.parseDouble(args[6]);
        int steps = args.length == 8 ? Integer.parseInt(args[7]) : Integer.MAX_VALUE;
        AnonymizationAlgorithm algorithm;
        switch (name) {
        case "bottom-up": algorithm = AnonymizationAlgorithm.BEST_EFFORT_BOTTOM_UP; break;
        case "top-down": algorithm = AnonymizationAlgorithm.BEST_EFFORT_TOP_DOWN; break;
        case "genetic": algorithm = AnonymizationAlgorithm.BEST_EFFORT_GENETIC; break;
        default: throw new IllegalArgumentException("unknown algorithm " + name);
        }

        long t0 = System.nanoTime();
        Data data = Data.create(csv, StandardCharsets.UTF_8, ';');
        java.util.Set<String> qiSet = new java.util.HashSet<>(java.util.Arrays.asList(qis));
        for (int c = 0; c < data.getHandle().getNumColumns(); c++) {
            String column = data.getHandle().getAttributeName(c);
            if (!qiSet.contains(column)) data.getDefinition().setAttributeType(column, AttributeType.INSENSITIVE_ATTRIBUTE);
        }
        for (String q : qis) {
            data.getDefinition().setAttributeType(q, Hierarchy.create(dir + "/" + q + ".csv", StandardCharsets.UTF_8, ';'));
        }
        ARXConfiguration config = ARXConfiguration.create();
        config.addPrivacyModel(new KAnonymity(k));
        config.setSuppressionLimit(limit);
        config.setQualityModel(Metric.createLossMetric(0.5));
        config.setAlgorithm(algorithm);
        config.setHeuristicSearchTimeLimit((int) Math.round(seconds * 1000));
        config.setHeuristicSearchStepLimit(steps);
        if (algorithm == AnonymizationAlgorithm.BEST_EFFORT_GENETIC) config.setGeneticAlgorithmDeterministic(true);
        long t1 = System.nanoTime();
        ARXResult result = new ARXAnonymizer().anonymize(data, config);
        long t2 = System.nanoTime();

        StringBuilder out = new StringBuilder();
        out.append("{\"tool\": \"arx\", \"algorithm\": ").append(quote(name))
           .append(", \"time_limit_s\": ").append(seconds)
           .append(", \"qis\": ").append(qis.length)
           .append(", \"step_limit\": ").append(steps == Integer.MAX_VALUE ? "null" : Integer.toString(steps))
           .append(", \"checks\": ").append(result.getProcessStatistics().getTransformationsChecked())
           .append(String.format(Locale.ROOT, ", \"read_s\": %.3f, \"search_s\": %.3f", (t1 - t0) / 1e9, (t2 - t1) / 1e9));
        ARXNode optimum = result.getGlobalOptimum();
        if (optimum == null) {
            out.append(", \"transformation\": null, \"information_loss\": null}");
        } else {
            out.append(", \"transformation\": {");
            for (int i = 0; i < qis.length; i++) {
                out.append(i == 0 ? "" : ", ").append(quote(qis[i])).append(": ").append(optimum.getGeneralization(qis[i]));
            }
            // The aggregate prints as Java's shortest representation of the double.
            out.append("}, \"information_loss\": ")
               .append(Double.toString(Double.parseDouble(optimum.getHighestScore().toString())));
            // The per-attribute values before aggregation, in ARX's order of the dimensions.
            Object values = optimum.getHighestScore().getValue();
            if (values instanceof double[]) {
                out.append(", \"per_attribute\": [");
                double[] v = (double[]) values;
                for (int i = 0; i < v.length; i++) out.append(i == 0 ? "" : ", ").append(Double.toString(v[i]));
                out.append("]");
            }
            out.append("}");
        }
        System.out.println(out);
    }
}
