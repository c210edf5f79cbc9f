import NextAuth from "next-auth";
import { getAuthOptions } from "@/lib/auth/options";

type NextAuthContext = { params: Promise<{ nextauth: string[] }> };

// The options read the environment, so they are built per request rather than while the app is compiled.
function handler(request: Request, context: NextAuthContext) {
  return NextAuth(getAuthOptions())(request, context);
}

export { handler as GET, handler as POST };
