// SPDX-License-Identifier: Apache-2.0
//
// Writes ARX 3.9.2's Pitman estimates for given class-size frequencies as the JSON reference of
// tests/integration/arx_pitman_test.cc (tests/testdata/reference/arx-pitman-estimates.json). Input: one
// table per line, "u n size:count size:count ..." (u classes, n records). It lives in ARX's package
// because ARX's Pitman model is package-private; it calls it exactly as ARX's PopulationUniqueness
// criterion does (the default ARXSolverConfiguration), and reports NaN (no estimate) as null. Not part
// of deid; build and run against the jar that bench/compare-arx.sh describes:
//
//   javac -cp libarx-3.9.2.jar -d DIR bench/arx/risk/PitmanReference.java
//   java -cp libarx-3.9.2.jar:DIR org.deidentifier.arx.risk.PitmanReference TABLES POPULATION > OUT.json
package org.deidentifier.arx.risk;

import java.io.BufferedReader;
import java.io.FileReader;
import java.io.IOException;

import com.carrotsearch.hppc.IntIntOpenHashMap;

import org.deidentifier.arx.ARXPopulationModel;
import org.deidentifier.arx.ARXSolverConfiguration;
import org.deidentifier.arx.common.WrappedBoolean;

public class PitmanReference {
    public static void main(String[] args) throws IOException {
        long population = Long.parseLong(args[1]);
        StringBuilder out = new StringBuilder();
        out.append("{\n  \"tool\": \"ARX 3.9.2, ModelPitman with the default ARXSolverConfiguration\",\n");
        out.append("  \"population\": ").append(population).append(",\n  \"cases\": [\n");
        try (BufferedReader in = new BufferedReader(new FileReader(args[0]))) {
            String line;
            boolean first = true;
            while ((line = in.readLine()) != null) {
                String[] fields = line.trim().split(" ");
                IntIntOpenHashMap sizes = new IntIntOpenHashMap();
                StringBuilder pairs = new StringBuilder();
                for (int i = 2; i < fields.length; i++) {
                    String[] kv = fields[i].split(":");
                    sizes.put(Integer.parseInt(kv[0]), Integer.parseInt(kv[1]));
                    pairs.append(i > 2 ? ", " : "").append("[").append(kv[0]).append(", ").append(kv[1]).append("]");
                }
                ModelPitman model = new ModelPitman(ARXPopulationModel.create(population), new RiskModelHistogram(sizes),
                                                    ARXSolverConfiguration.create(), new WrappedBoolean());
                double uniques = model.getNumUniques();
                out.append(first ? "" : ",\n").append("    {\"sizes\": [").append(pairs).append("], \"uniques\": ")
                   .append(Double.isNaN(uniques) ? "null" : Double.toString(uniques)).append("}");
                first = false;
            }
        }
        out.append("\n  ]\n}\n");
        System.out.print(out);
    }
}
