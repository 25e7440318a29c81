// SPDX-License-Identifier: Apache-2.0
//
// Writes ARX 3.9.2's attribute risk (RiskModelAttributes: alpha-distinction and alpha-separation of
// every non-empty combination of the quasi-identifiers, after Motwani and Xu) and its HIPAA Safe
// Harbor matches (RiskModelHIPAASafeHarbor, confidence threshold 0.5, as RiskEstimateBuilder's
// getHIPAAIdentifiers() calls it) as the JSON reference of tests/unit/inspect_arx_test.cc
// (tests/testdata/reference/arx-attribute-risk.json). Not part of deid; it only calls ARX's public
// API: Data.create on the CSV file, then the input handle's risk estimator for the given
// quasi-identifiers (DataHandle.getRiskEstimator(ARXPopulationModel, Set<String>)). Build and run
// from the repository's root (the paths given are written into the JSON as they are) against the
// jar that bench/compare-arx.sh describes:
//
//   javac -cp libarx-3.9.2.jar -d DIR bench/arx/risk/AttributeRiskReference.java
//   java -cp libarx-3.9.2.jar:DIR AttributeRiskReference NAME PATH QI,QI,... [NAME PATH QI,...]... > OUT.json
//
// Every data file is read as UTF-8 with ';' as its delimiter. The combinations are listed in ARX's
// order (QuasiIdentifierRisk.compareTo: size, distinction, separation, then the names), each with its
// columns in the table's order; the values are Java's shortest round-trip decimal of ARX's doubles
// (getDistinction(), getSeparation(): NaN read as 0).
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

import org.deidentifier.arx.ARXPopulationModel;
import org.deidentifier.arx.ARXPopulationModel.Region;
import org.deidentifier.arx.Data;
import org.deidentifier.arx.DataHandle;
import org.deidentifier.arx.risk.HIPAAIdentifierMatch;
import org.deidentifier.arx.risk.RiskEstimateBuilder;
import org.deidentifier.arx.risk.RiskModelAttributes;
import org.deidentifier.arx.risk.RiskModelAttributes.QuasiIdentifierRisk;

public class AttributeRiskReference {

    private static String quote(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') {
                b.append('\\').append(c);
            } else if (c < 0x20) {
                b.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
            } else {
                b.append(c);
            }
        }
        return b.append('"').toString();
    }

    private static String names(List<String> list) {
        StringBuilder b = new StringBuilder("[");
        for (int i = 0; i < list.size(); i++) {
            b.append(i > 0 ? ", " : "").append(quote(list.get(i)));
        }
        return b.append(']').toString();
    }

    public static void main(String[] args) throws IOException {
        if (args.length == 0 || args.length % 3 != 0) {
            System.err.println("usage: AttributeRiskReference NAME PATH QI,QI,... [NAME PATH QI,...]...");
            System.exit(2);
        }
        StringBuilder out = new StringBuilder();
        out.append("{\n  \"tool\": \"ARX 3.9.2\",\n");
        out.append("  \"attribute_risk\": \"RiskModelAttributes via DataHandle.getRiskEstimator(ARXPopulationModel.create(Region.USA), qis).getAttributeRisks()\",\n");
        out.append("  \"hipaa\": \"RiskModelHIPAASafeHarbor via getRiskEstimator(...).getHIPAAIdentifiers() (confidence threshold 0.5)\",\n");
        out.append("  \"datasets\": [\n");
        for (int d = 0; d < args.length; d += 3) {
            String name = args[d];
            String path = args[d + 1];
            Set<String> qis = new LinkedHashSet<>(Arrays.asList(args[d + 2].split(",")));
            Data data = Data.create(path, StandardCharsets.UTF_8, ';');
            DataHandle handle = data.getHandle();
            RiskEstimateBuilder builder = handle.getRiskEstimator(ARXPopulationModel.create(Region.USA), qis);
            RiskModelAttributes model = builder.getAttributeRisks();
            QuasiIdentifierRisk[] risks = model.getAttributeRisks();

            out.append(d > 0 ? ",\n" : "").append("    {\n");
            out.append("      \"name\": ").append(quote(name)).append(",\n");
            out.append("      \"path\": ").append(quote(path)).append(",\n");
            out.append("      \"records\": ").append(handle.getNumRows()).append(",\n");
            out.append("      \"quasi_identifiers\": ").append(names(Arrays.asList(args[d + 2].split(",")))).append(",\n");
            out.append("      \"combinations\": [\n");
            for (int i = 0; i < risks.length; i++) {
                out.append(i > 0 ? ",\n" : "").append("        {\"columns\": ").append(names(risks[i].getIdentifier()))
                   .append(", \"distinction\": ").append(Double.toString(risks[i].getDistinction()))
                   .append(", \"separation\": ").append(Double.toString(risks[i].getSeparation())).append('}');
            }
            out.append("\n      ],\n");
            HIPAAIdentifierMatch[] matches = builder.getHIPAAIdentifiers();
            out.append("      \"hipaa_matches\": [");
            for (int i = 0; i < matches.length; i++) {
                HIPAAIdentifierMatch m = matches[i];
                out.append(i > 0 ? "," : "").append("\n        {\"column\": ").append(quote(m.getColumn()))
                   .append(", \"identifier\": ").append(quote(m.getIdentifier().toString()))
                   .append(", \"match_type\": ").append(quote(m.getMatchType().toString()))
                   .append(", \"instance\": ").append(m.getInstance() == null ? "null" : quote(m.getInstance()))
                   .append(", \"value\": ").append(m.getValue() == null ? "null" : quote(m.getValue()))
                   .append(", \"confidence\": ").append(m.getConfidence() == null ? "null" : Double.toString(m.getConfidence()))
                   .append('}');
            }
            out.append(matches.length > 0 ? "\n      ]\n" : "]\n");
            out.append("    }");
        }
        out.append("\n  ]\n}\n");
        System.out.print(out);
    }
}
