import type { Metadata } from "next";
import { SwaggerDocs } from "@/components/docs/swagger-docs";

export const metadata: Metadata = { title: "API documentation" };

export default function DocsPage() {
  return <SwaggerDocs />;
}
