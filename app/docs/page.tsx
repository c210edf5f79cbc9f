import type { Metadata } from "next";
import { getTranslations } from "next-intl/server";
import { OperationsWithoutScripts } from "@/components/docs/operations-without-scripts";
import { SwaggerDocs } from "@/components/docs/swagger-docs";

export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getTranslations("meta"))("docsTitle") };
}

export default function DocsPage() {
  return (
    <SwaggerDocs>
      <OperationsWithoutScripts />
    </SwaggerDocs>
  );
}
