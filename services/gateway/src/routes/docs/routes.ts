import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { openApiDocument, type DocumentedLimits } from '../shared/openapi-document.ts';

/** Where the interactive API reference is served; the document is at `${DOCS_PATH}/json`. */
const DOCS_PATH = '/docs';

/**
 * The OpenAPI document and Swagger UI at /docs. The viewer's files come from the
 * installed package (nothing from another site), under its own Content-Security-Policy.
 */
export async function docsRoutes(
  app: FastifyInstance,
  publicBaseUrl: string,
  limits: DocumentedLimits,
): Promise<void> {
  const document = openApiDocument(publicBaseUrl, { limits });
  await app.register(swagger, {
    mode: 'static',
    specification: { document: document as never },
  });
  await app.register(swaggerUi, {
    routePrefix: DOCS_PATH,
    staticCSP: true,
    uiConfig: { deepLinking: true, defaultModelsExpandDepth: 1 },
  });
}
