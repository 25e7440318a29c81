// SPDX-License-Identifier: Apache-2.0
//
// Produces tests/testdata/reference/arx-heuristics.json: ARX 3.9.2's heuristic searches on examples/adult
// (all nine columns quasi-identifying, in the file's order, with examples/adult/hierarchies): Lightning
// bottom-up and top-down (BEST_EFFORT_BOTTOM_UP, BEST_EFFORT_TOP_DOWN) with several step limits, and the
// genetic algorithm (BEST_EFFORT_GENETIC) in deterministic mode, for several k and suppression limits, with
// ARX's Loss (gs-factor 0.5, geometric mean). No time limit (Integer.MAX_VALUE ms), so every run is
// deterministic. Prints one JSON document.
//
//   javac -nowarn -cp ARX_JAR -d /tmp/arxh bench/arx/ArxHeuristics.java
//   java -cp ARX_JAR:/tmp/arxh ArxHeuristics examples/adult > tests/testdata/reference/arx-heuristics.json
//
// Not part of deid.

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import org.deidentifier.arx.ARXAnonymizer;
import org.deidentifier.arx.ARXConfiguration;
import org.deidentifier.arx.ARXConfiguration.AnonymizationAlgorithm;
import org.deidentifier.arx.ARXLattice.ARXNode;
import org.deidentifier.arx.ARXResult;
import org.deidentifier.arx.AttributeType.Hierarchy;
import org.deidentifier.arx.Data;
import org.deidentifier.arx.criteria.KAnonymity;
import org.deidentifier.arx.metric.Metric;

public class ArxHeuristics {

    /** One run: the algorithm, k, suppression limit, step limit (0: none) and the genetic settings. */
    static final class Run {
        String name;
        AnonymizationAlgorithm algorithm;
        int k;
        double suppression;
        int steps;
        // Genetic algorithm: subpopulation size, iterations, and the fractions (null: ARX's defaults).
        Integer subpopulation;
        Integer iterations;
        Double crossover;
        Double mutation;
        Double immigration;
        Integer immigrationInterval;
    }

    static String algorithmName(AnonymizationAlgorithm a) {
        switch (a) {
        case BEST_EFFORT_BOTTOM_UP: return "bottom-up";
        case BEST_EFFORT_TOP_DOWN: return "top-down";
        case BEST_EFFORT_GENETIC: return "genetic";
        default: throw new IllegalArgumentException(a.toString());
        }
    }

    static List<Run> runs() {
        List<Run> out = new ArrayList<>();
        int[] ks = {2, 5, 10};
        double[] limits = {0.0, 0.05};
        int[] steps = {10, 100, 1000, 0};
        for (AnonymizationAlgorithm a : new AnonymizationAlgorithm[] {AnonymizationAlgorithm.BEST_EFFORT_BOTTOM_UP,
                                                                       AnonymizationAlgorithm.BEST_EFFORT_TOP_DOWN}) {
            for (int k : ks) {
                for (double limit : limits) {
                    for (int s : steps) {
                        Run r = new Run();
                        r.algorithm = a;
                        r.k = k;
                        r.suppression = limit;
                        r.steps = s;
                        r.name = String.format(Locale.ROOT, "%s_k%d_s%s_%s", algorithmName(a), k, limit,
                                               s == 0 ? "unlimited" : "steps" + s);
                        out.add(r);
                    }
                }
            }
        }
        // The genetic algorithm: ARX's defaults, and smaller or altered settings.
        Object[][] genetic = {
            // k, suppression, steps, subpopulation, iterations, crossover, mutation, immigration, interval
            {2, 0.0, 0, null, null, null, null, null, null},
            {5, 0.05, 0, null, null, null, null, null, null},
            {10, 0.0, 500, null, null, null, null, null, null},
            {5, 0.0, 0, 20, 10, null, null, null, null},
            {5, 0.05, 0, 10, 30, 0.4, 0.5, 1.0, 3},
            {10, 0.05, 300, 30, 20, 0.1, 0.3, null, 5},
        };
        int i = 0;
        for (Object[] g : genetic) {
            Run r = new Run();
            r.algorithm = AnonymizationAlgorithm.BEST_EFFORT_GENETIC;
            r.k = (Integer) g[0];
            r.suppression = (Double) g[1];
            r.steps = (Integer) g[2];
            r.subpopulation = (Integer) g[3];
            r.iterations = (Integer) g[4];
            r.crossover = (Double) g[5];
            r.mutation = (Double) g[6];
            r.immigration = (Double) g[7];
            r.immigrationInterval = (Integer) g[8];
            r.name = String.format(Locale.ROOT, "genetic_%d_k%d_s%s", i++, r.k, r.suppression);
            out.add(r);
        }
        return out;
    }

    static String json(Run r, String[] qis, ARXResult result) {
        StringBuilder out = new StringBuilder();
        out.append("  {\"name\": \"").append(r.name).append("\", \"algorithm\": \"").append(algorithmName(r.algorithm))
           .append("\", \"k\": ").append(r.k).append(", \"suppression_limit\": ").append(r.suppression)
           .append(", \"step_limit\": ").append(r.steps == 0 ? "null" : Integer.toString(r.steps));
        if (r.algorithm == AnonymizationAlgorithm.BEST_EFFORT_GENETIC) {
            out.append(", \"genetic\": {");
            List<String> items = new ArrayList<>();
            if (r.subpopulation != null) items.add("\"subpopulation-size\": " + r.subpopulation);
            if (r.iterations != null) items.add("\"iterations\": " + r.iterations);
            if (r.crossover != null) items.add("\"crossover-fraction\": " + r.crossover);
            if (r.mutation != null) items.add("\"mutation-probability\": " + r.mutation);
            if (r.immigration != null) items.add("\"immigration-fraction\": " + r.immigration);
            if (r.immigrationInterval != null) items.add("\"immigration-interval\": " + r.immigrationInterval);
            out.append(String.join(", ", items)).append("}");
        }
        out.append(", \"checks\": ").append(result.getProcessStatistics().getTransformationsChecked());
        ARXNode optimum = result.getGlobalOptimum();
        if (optimum == null) {
            out.append(", \"transformation\": null, \"information_loss\": null}");
            return out.toString();
        }
        out.append(", \"transformation\": {");
        for (int i = 0; i < qis.length; i++) {
            out.append(i == 0 ? "" : ", ").append('"').append(qis[i]).append("\": ").append(optimum.getGeneralization(qis[i]));
        }
        // The aggregate prints as Java's shortest representation of the double.
        out.append("}, \"information_loss\": ").append(Double.toString(Double.parseDouble(optimum.getHighestScore().toString())));
        out.append("}");
        return out.toString();
    }

    public static void main(String[] args) throws IOException {
        if (args.length != 1) {
            System.err.println("usage: ArxHeuristics ADULT_DIR");
            System.exit(2);
        }
        String dir = args[0];
        String[] qis = {"sex", "age", "race", "marital-status", "education", "native-country", "workclass",
                        "occupation", "salary-class"};
        List<String> entries = new ArrayList<>();
        for (Run r : runs()) {
            Data data = Data.create(dir + "/adult.csv", StandardCharsets.UTF_8, ';');
            for (String q : qis) {
                data.getDefinition().setAttributeType(q, Hierarchy.create(dir + "/hierarchies/" + q + ".csv",
                                                                           StandardCharsets.UTF_8, ';'));
            }
            ARXConfiguration config = ARXConfiguration.create();
            config.addPrivacyModel(new KAnonymity(r.k));
            config.setSuppressionLimit(r.suppression);
            config.setQualityModel(Metric.createLossMetric(0.5));
            config.setAlgorithm(r.algorithm);
            config.setHeuristicSearchTimeLimit(Integer.MAX_VALUE);
            config.setHeuristicSearchStepLimit(r.steps == 0 ? Integer.MAX_VALUE : r.steps);
            if (r.algorithm == AnonymizationAlgorithm.BEST_EFFORT_GENETIC) {
                config.setGeneticAlgorithmDeterministic(true);
                if (r.subpopulation != null) config.setGeneticAlgorithmSubpopulationSize(r.subpopulation);
                if (r.iterations != null) config.setGeneticAlgorithmIterations(r.iterations);
                if (r.crossover != null) config.setGeneticAlgorithmCrossoverFraction(r.crossover);
                if (r.mutation != null) config.setGeneticAlgorithmMutationProbability(r.mutation);
                if (r.immigration != null) config.setGeneticAlgorithmImmigrationFraction(r.immigration);
                if (r.immigrationInterval != null) config.setGeneticAlgorithmImmigrationInterval(r.immigrationInterval);
            }
            ARXResult result = new ARXAnonymizer().anonymize(data, config);
            entries.add(json(r, qis, result));
        }
        System.out.println("{\n \"tool\": \"ARX 3.9.2 through bench/arx/ArxHeuristics.java\",");
        System.out.println(" \"dataset\": \"examples/adult: the nine columns quasi-identifying in the file's order, "
                           + "examples/adult/hierarchies\",");
        System.out.println(" \"note\": \"k-anonymity, Loss (gs-factor 0.5, geometric mean); heuristic search time limit "
                           + "Integer.MAX_VALUE ms, step limit in checks (null: Integer.MAX_VALUE); genetic in "
                           + "deterministic mode (java.util.Random(0xDEADBEEF)), unset settings ARX's defaults. checks: "
                           + "ARX's getTransformationsChecked()\",");
        System.out.println(" \"runs\": [");
        System.out.println(String.join(",\n", entries));
        System.out.println(" ]\n}");
    }
}
